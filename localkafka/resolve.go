package localkafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// DefaultKafkaVersion is the Kafka release `cluster up` starts when none is given.
const DefaultKafkaVersion = "4.1.0"

// ExporterVersion is the Prometheus JMX exporter java agent attached to each broker.
const ExporterVersion = "1.0.1"

// Errors a caller may want to tell apart; each is wrapped with the detail and the fix.
var (
	ErrNoJava      = errors.New("java not found")
	ErrOldJava     = errors.New("java too old")
	ErrNoMaven     = errors.New("mvn not found")
	ErrNoSuchKafka = errors.New("kafka version not resolvable")
)

// Dist is a resolved Kafka distribution: a directory of jars ready for a classpath.
type Dist struct {
	Version  string `json:"version"`
	LibDir   string `json:"lib_dir"`
	Exporter string `json:"exporter_jar"`
	// Log4j2 is true for Kafka 4 and later (log4j2), false for 3.x (reload4j).
	Log4j2 bool `json:"log4j2"`
}

// Classpath is the java -cp value for the distribution.
func (d Dist) Classpath() string { return filepath.Join(d.LibDir, "*") }

// CacheDir is where resolved jars live: $PLIMSOLL_CACHE, else ~/.cache/plimsoll.
func CacheDir() string {
	if d := os.Getenv("PLIMSOLL_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "plimsoll")
	}
	return filepath.Join(os.TempDir(), "plimsoll-cache")
}

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// majorVersion returns the leading number of a Kafka version ("4.1.0" -> 4).
func majorVersion(v string) int {
	n, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	return n
}

// CheckJava returns the major version of java, a java binary ("" or "java": the one on PATH),
// or an error naming the fix. Kafka 4 brokers need Java 17; Kafka 3.9 runs on 11 and later.
func CheckJava(java, kafkaVersion string) (int, error) {
	if java == "" || java == "java" {
		p, err := exec.LookPath("java")
		if err != nil {
			return 0, fmt.Errorf("%w on PATH: install a JDK 17 or later (e.g. apt-get install openjdk-17-jdk-headless) and make sure `java -version` works", ErrNoJava)
		}
		java = p
	} else if fi, err := os.Stat(java); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return 0, fmt.Errorf("%w: %s is not an executable java binary; give a JDK's bin/java, e.g. /usr/lib/jvm/java-17-openjdk-amd64/bin/java", ErrNoJava, java)
	}
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%w: `java -version` failed: %v: %s", ErrNoJava, err, bytes.TrimSpace(out))
	}
	m := regexp.MustCompile(`version "([0-9]+)(\.([0-9]+))?`).FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%w: cannot read the version from `java -version`: %s", ErrNoJava, bytes.TrimSpace(out))
	}
	major, _ := strconv.Atoi(string(m[1]))
	if major == 1 && len(m[3]) > 0 { // "1.8.0"
		major, _ = strconv.Atoi(string(m[3]))
	}
	need := 11
	if majorVersion(kafkaVersion) >= 4 {
		need = 17
	}
	if major < need {
		return major, fmt.Errorf("%w: java %d found, Kafka %s needs %d or later: install a newer JDK and put it first on PATH (or give its java with --java)", ErrOldJava, major, kafkaVersion, need)
	}
	return major, nil
}

// pom lists the broker and its runtime: the logging binding differs between Kafka 3 (reload4j)
// and Kafka 4 (log4j2).
func pom(version string) string {
	logging := `
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>2.24.3</version></dependency>`
	if majorVersion(version) < 4 {
		logging = `
    <dependency><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId><version>1.2.25</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>`
	}
	return fmt.Sprintf(`<project xmlns="http://maven.apache.org/POM/4.0.0">
  <!-- written by plimsoll: the jars a Kafka %[1]s broker needs, copied into libs/ -->
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.plimsoll.runtime</groupId><artifactId>kafka-broker</artifactId><version>%[1]s</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>%[1]s</version></dependency>
    <dependency><groupId>io.prometheus.jmx</groupId><artifactId>jmx_prometheus_javaagent</artifactId><version>%[2]s</version></dependency>%[3]s
  </dependencies>
</project>
`, version, ExporterVersion, logging)
}

// Resolve makes sure the jars for Kafka version are in the cache and returns them. The first
// call for a version runs Maven (a minute or less); later calls only check the cache.
func Resolve(ctx context.Context, version string) (Dist, error) {
	if !versionRE.MatchString(version) {
		return Dist{}, fmt.Errorf("%w: %q is not a Kafka version such as %s or 3.9.1", ErrNoSuchKafka, version, DefaultKafkaVersion)
	}
	dir := filepath.Join(CacheDir(), "kafka", version)
	d := Dist{
		Version: version,
		LibDir:  filepath.Join(dir, "libs"),
		// The agent must not be on the broker's classpath too, or it registers its metrics twice.
		Exporter: filepath.Join(dir, "agent", "jmx_prometheus_javaagent-"+ExporterVersion+".jar"),
		Log4j2:   majorVersion(version) >= 4,
	}
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return d, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return d, fmt.Errorf("%w on PATH: plimsoll resolves Kafka's jars from Maven Central with Maven; install it (e.g. apt-get install maven)", ErrNoMaven)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return d, err
	}
	// Resolve into a fresh directory and rename it into place, so an interrupted run never
	// leaves a half-filled libs/ behind that looks complete.
	tmp, err := os.MkdirTemp(dir, "libs-")
	if err != nil {
		return d, err
	}
	defer os.RemoveAll(tmp)
	pomPath := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pomPath, []byte(pom(version)), 0o644); err != nil {
		return d, err
	}
	cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "-f", pomPath,
		"dependency:copy-dependencies", "-DoutputDirectory="+tmp, "-DincludeScope=runtime")
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := lastLines(string(out), 15)
		if strings.Contains(msg, "Could not resolve") || strings.Contains(msg, "not find artifact") || strings.Contains(msg, "was not found") {
			return d, fmt.Errorf("%w: Maven cannot resolve org.apache.kafka:kafka_2.13:%s; check the version exists on Maven Central (e.g. %s, 3.9.1): %s", ErrNoSuchKafka, version, DefaultKafkaVersion, msg)
		}
		return d, fmt.Errorf("resolving Kafka %s with Maven failed (%v); Maven said:\n%s", version, err, msg)
	}
	if err := os.MkdirAll(filepath.Dir(d.Exporter), 0o755); err != nil {
		return d, err
	}
	if err := os.Rename(filepath.Join(tmp, filepath.Base(d.Exporter)), d.Exporter); err != nil {
		return d, fmt.Errorf("the JMX exporter agent is missing after resolution: %w", err)
	}
	if err := os.RemoveAll(d.LibDir); err != nil {
		return d, err
	}
	if err := os.Rename(tmp, d.LibDir); err != nil {
		return d, err
	}
	return d, os.WriteFile(done, []byte(version+"\n"), 0o644)
}

// ResolveTools resolves Kafka's own command-line tools (kafka-tools, e.g. ProducerPerformance)
// for version into their own directory, for side-by-side benchmarks. It returns the classpath.
func ResolveTools(ctx context.Context, version string) (string, error) {
	if !versionRE.MatchString(version) {
		return "", fmt.Errorf("%w: %q", ErrNoSuchKafka, version)
	}
	dir := filepath.Join(CacheDir(), "kafka-tools", version)
	cp := filepath.Join(dir, "libs", "*")
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return cp, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("%w on PATH: install Maven (e.g. apt-get install maven)", ErrNoMaven)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := strings.Replace(pom(version), "<artifactId>kafka_2.13</artifactId>", "<artifactId>kafka-tools</artifactId>", 1)
	p = strings.Replace(p, "kafka-broker", "kafka-tools", 1)
	pomPath := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pomPath, []byte(p), 0o644); err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, mvn, "-B", "-q", "-f", pomPath, "dependency:copy-dependencies",
		"-DoutputDirectory="+filepath.Join(dir, "libs"), "-DincludeScope=runtime").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("resolving kafka-tools %s with Maven failed (%v):\n%s", version, err, lastLines(string(out), 15))
	}
	return cp, os.WriteFile(filepath.Join(dir, ".complete"), []byte(version+"\n"), 0o644)
}

// lastLines returns at most n trailing non-empty lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
