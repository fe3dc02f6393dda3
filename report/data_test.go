package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Data)
		field  string // the FieldError expected first; "" = valid
		fix    string // part of the message that says what to do
	}{
		{"full fixture", func(*Data) {}, "", ""},
		{"empty", func(d *Data) { *d = Data{} }, "", ""},
		{"negative brokers", func(d *Data) { d.Brokers = -1 }, "Brokers", "number of brokers"},
		{"NaN host cores", func(d *Data) { d.HostCores = math.NaN() }, "HostCores", "0 or a number from"},
		{"CPU share without who", func(d *Data) { d.CPUShare[1].Who = " " }, "CPUShare[1].Who", `"plimsoll"`},
		{"CPU share negative", func(d *Data) { d.CPUShare[0].Cores = -0.1 }, "CPUShare[0].Cores", "0 or a number"},
		{"CPU share bad size", func(d *Data) { d.CPUShare[0].SizeBytes = -5 }, "CPUShare[0].SizeBytes", "message size in bytes"},
		{"boundary size 0", func(d *Data) { d.Boundary[2].SizeBytes = 0 }, "Boundary[2].SizeBytes", "message size in bytes"},
		{"boundary size huge", func(d *Data) { d.Boundary[2].SizeBytes = 1<<30 + 1 }, "Boundary[2].SizeBytes", "from 1 to"},
		{"boundary duplicate size", func(d *Data) { d.Boundary[3].SizeBytes = 1000 }, "Boundary[3].SizeBytes", "one point per size"},
		{"boundary infinite rate", func(d *Data) { d.Boundary[0].SafeMsgsPerSec = math.Inf(1) }, "Boundary[0].SafeMsgsPerSec", "a number"},
		{"boundary negative unsafe", func(d *Data) { d.Boundary[0].UnsafeMsgsPerSec = -1 }, "Boundary[0].UnsafeMsgsPerSec", "0 or a number"},
		{"boundary negative trials", func(d *Data) { d.Boundary[0].Trials = -1 }, "Boundary[0].Trials", ">= 0"},
		{"model duplicate size", func(d *Data) { d.Model[1].SizeBytes = 100 }, "Model[1].SizeBytes", "one prediction per size"},
		{"model rate too high", func(d *Data) { d.Model[0].MsgsPerSec = 1e13 }, "Model[0].MsgsPerSec", "1e-06 to 1e+12"},
		{"recommendation NaN", func(d *Data) { d.Recommendation.ClusterBytesPerSec = math.NaN() }, "Recommendation.ClusterBytesPerSec", "a number"},
		{"recommendation brokers down", func(d *Data) { d.Recommendation.BrokersDown = -2 }, "Recommendation.BrokersDown", ">= 0"},
		{"trial state", func(d *Data) { d.Trials[4].State = "OK" }, "Trials[4].State", "ok, overloaded, invalid"},
		{"trial size", func(d *Data) { d.Trials[0].SizeBytes = 0 }, "Trials[0].SizeBytes", "message size"},
		{"trial achieved NaN", func(d *Data) { d.Trials[0].AchievedMsgsPerSec = math.NaN() }, "Trials[0].AchievedMsgsPerSec", "a number"},
		{"latency negative", func(d *Data) {
			q := d.Trials[1].Latency[LatencyPublish]
			q.P999 = -3
			d.Trials[1].Latency[LatencyPublish] = q
		}, `Trials[1].Latency["publish"].P999`, "0 or a number"},
		{"latency empty kind", func(d *Data) { d.Trials[1].Latency[""] = Percentiles{} }, `Trials[1].Latency[""]`, "empty kind"},
		{"USE columns", func(d *Data) { d.Trials[5].USE.Columns = []string{"a", "b"} }, "Trials[5].USE.Columns", "give 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fullData()
			tt.change(&d)
			err := Validate(d)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidData) {
				t.Fatalf("Validate = %v, want ErrInvalidData", err)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate = %v, want a *FieldError", err)
			}
			if fe.Field != tt.field {
				t.Errorf("field %q, want %q (%v)", fe.Field, tt.field, err)
			}
			if !strings.Contains(err.Error(), tt.fix) {
				t.Errorf("error %q does not say %q", err, tt.fix)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	d := fullData()
	d.Brokers = -1
	d.Trials[0].State = ""
	d.Model[0].SizeBytes = 0
	err := Validate(d)
	for _, f := range []string{"Brokers", "Trials[0].State", "Model[0].SizeBytes"} {
		if !strings.Contains(err.Error(), "report: "+f+" ") {
			t.Errorf("the error does not name %s: %v", f, err)
		}
	}
}

func TestReadData(t *testing.T) {
	good, err := json.Marshal(fullData())
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadData(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Boundary) != 4 || d.Trials[3].ClientBound != true || d.Trials[5].USE.Rows[0].Utilisation != "81%" {
		t.Errorf("ReadData lost fields: %+v", d.Boundary)
	}
	tests := []struct {
		name, in, want string
		invalid        bool // wraps ErrInvalidData
	}{
		{"not JSON", `{"title":`, "decoding data", false},
		{"unknown field", `{"title":"x","boundry":[]}`, `unknown field "boundry"`, false},
		{"wrong type", `{"brokers":"three"}`, "brokers", false},
		{"two values", `{"title":"x"} {"title":"y"}`, "more than one JSON value", true},
		{"invalid state", `{"trials":[{"n":1,"size_bytes":100,"state":"good"}]}`, "Trials[0].State", true},
		{"zero size", `{"boundary":[{"size_bytes":0,"safe_msgs_per_sec":1,"unsafe_msgs_per_sec":0,"safe_bytes_per_sec":0,"trials":1}]}`, "Boundary[0].SizeBytes", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadData(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadData = %v, want an error about %q", err, tt.want)
			}
			if errors.Is(err, ErrInvalidData) != tt.invalid {
				t.Errorf("errors.Is(%v, ErrInvalidData) = %v, want %v", err, !tt.invalid, tt.invalid)
			}
		})
	}
}
