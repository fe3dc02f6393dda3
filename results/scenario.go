package results

import (
	"fmt"
	"path/filepath"
	"time"
)

// KindScenario is one `plimsoll scenario run`: a Scenario.
const KindScenario = "scenario"

// ScenarioFile is the results file a scenario run writes in its --out directory.
const ScenarioFile = "results.jsonl"

// Scenario is what one run of a named experiment (`plimsoll scenario run NAME`) measured, in one
// shape for every experiment, so that one renderer draws them all: its full configuration and the
// plimsoll commands it ran, its charts as data (the measured series, the model's line, the
// article's figure), the findings it names, and what failed, kept as data rather than a crash.
type Scenario struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Mode is "short" (the tests' small counts) or "full" (what a user runs).
	Mode     string    `json:"mode"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Params are the experiment's parameters as run (defaults of its mode, then --set).
	Params map[string]string `json:"params"`
	// Config is the rest of its configuration: the Kafka release, the cluster, the host's limits
	// it read, anything a reader needs to trust or repeat a figure.
	Config map[string]string `json:"config,omitempty"`
	// Commands are the plimsoll command lines it ran, in order, each with the directory of its
	// output below the scenario's own.
	Commands []ScenarioCommand `json:"commands,omitempty"`
	Charts   []Chart           `json:"charts"`
	Findings []Finding         `json:"findings"`
	// Failures are what went wrong and was recorded as data (a timeout, a broker's error).
	Failures []string `json:"failures,omitempty"`
	// Sources are the articles whose experiment this repeats, with their hardware.
	Sources []Source `json:"sources,omitempty"`
	// Interrupted is set when the run was stopped by a signal before it finished.
	Interrupted bool `json:"interrupted,omitempty"`
}

// ScenarioCommand is one plimsoll command a scenario ran.
type ScenarioCommand struct {
	Args []string `json:"args"`
	// Dir is its output directory, relative to the scenario's --out ("" if it wrote none).
	Dir  string `json:"dir,omitempty"`
	Exit int    `json:"exit"`
}

// Chart is one chart of a scenario as data: each series a list of points on the same axes.
type Chart struct {
	Title string `json:"title"`
	// X and Y label the axes with their units, e.g. "partitions" and "seconds per 1,000".
	X      string   `json:"x"`
	Y      string   `json:"y"`
	LogX   bool     `json:"log_x,omitempty"`
	LogY   bool     `json:"log_y,omitempty"`
	Series []Series `json:"series"`
	// XNames, when set, makes the x axis categories: a point's X is the index of its name
	// (0 for XNames[0], ...), e.g. the listeners PLAINTEXT, SSL, SASL_SSL.
	XNames []string `json:"x_names,omitempty"`
}

// Series kinds: what plimsoll measured, what its model predicts, what the article reported, and a
// limit read off the host (vm.max_map_count, the open-files limit), drawn as a flat line.
const (
	SeriesMeasured = "measured"
	SeriesModel    = "model"
	SeriesArticle  = "article"
	SeriesLimit    = "limit"
)

// Series is one line or set of points on a chart.
type Series struct {
	Name string `json:"name"`
	// Kind is SeriesMeasured, SeriesModel, SeriesArticle (drawn dashed, with its source) or
	// SeriesLimit.
	Kind   string  `json:"kind"`
	Points []Point `json:"points"`
	// Source cites an article series: the seed and its figure ("002, figure 3").
	Source string `json:"source,omitempty"`
}

// Point is one point of a series; Note marks a failure or a remark at it ("timed out").
type Point struct {
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	Note string  `json:"note,omitempty"`
}

// Finding is one figure a scenario names: measured, beside the model's or the article's where
// either has one. Unit is one of the units the report formats ("msgs/s", "B/s", "s", "ms",
// "partitions", "ratio", "%", "count", "yes/no": 1 yes, 0 no).
type Finding struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Model is the model's prediction of the same figure, if it makes one.
	Model *float64 `json:"model,omitempty"`
	// Article is the article's figure, if it reports one, and ArticleNote what it measured on.
	Article     *float64 `json:"article,omitempty"`
	ArticleNote string   `json:"article_note,omitempty"`
	// Text says what the figure means, in a sentence written by the scenario.
	Text string `json:"text,omitempty"`
}

// Source is an article a scenario repeats: its seed number, title and the hardware it ran on.
type Source struct {
	Seed     string `json:"seed"`
	Title    string `json:"title"`
	Hardware string `json:"hardware"`
}

// LoadScenario reads the scenario record of a scenario's --out directory.
func LoadScenario(dir string) (Scenario, error) {
	recs, _, err := Load(filepath.Join(dir, ScenarioFile))
	if err != nil {
		return Scenario{}, err
	}
	all, err := DecodeAll[Scenario](recs, KindScenario)
	if err != nil {
		return Scenario{}, err
	}
	if len(all) == 0 {
		return Scenario{}, fmt.Errorf("%s: no scenario record: not the output of plimsoll scenario run", filepath.Join(dir, ScenarioFile))
	}
	return all[len(all)-1], nil
}
