package limit

import (
	"slices"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// Observations turns a search's trials of the given sizes into what the latency calibration
// reads: each trial's rate over the model's ceiling for its size, and its p99 publish latency.
// Trials without a model ceiling (no NIC rate), invalid ones and holds are left out.
func Observations(cfg results.Config, trials []results.Trial, sizes []int) []model.LatencyObservation {
	var out []model.LatencyObservation
	for _, t := range trials {
		if t.Step == nil || t.Step.Hold || !slices.Contains(sizes, t.Step.Size) || t.Verdict.State == verdict.Invalid {
			continue
		}
		p := Predict(cfg, t.Step.Size)
		if p == nil {
			continue
		}
		out = append(out, model.LatencyObservation{Size: t.Step.Size, Load: t.Step.Rate / p.MsgsPerSec,
			P99Ms: t.Latency.Publish.P99, Overflowing: t.Verdict.Ceiling == verdict.Overloaded})
	}
	return out
}

// sloPredictor predicts each size's SLO limit from the sizes searched before it, as found in
// the results file: the share of the model's ceiling at which their trials' p99 crossed the SLO,
// times this size's ceiling. It remembers each prediction, so that the size's boundary records
// the prediction made before the size was measured. Zero when nothing crossed yet.
type sloPredictor struct {
	store string
	cfg   results.Config
	sizes []int
	made  map[int]float64
}

func (p *sloPredictor) predict(size int) float64 {
	if r, ok := p.made[size]; ok {
		return r
	}
	p.made[size] = 0
	ceil := Predict(p.cfg, size)
	i := slices.Index(p.sizes, size)
	if ceil == nil || i <= 0 {
		return 0
	}
	sf, err := results.LoadSearch(p.store)
	if err != nil {
		return 0
	}
	cal, err := model.Calibrate(Observations(p.cfg, sf.Trials, p.sizes[:i]), p.cfg.Criteria.PublishP99SLOMs)
	if err != nil {
		return 0
	}
	p.made[size] = cal.SLORate(ceil.MsgsPerSec)
	return p.made[size]
}
