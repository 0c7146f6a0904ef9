// promcheck reads Prometheus text exposition format on stdin and checks it the way Prometheus's own tools do:
// parsed with prometheus/common's expfmt text parser (what node-exporter's textfile collector and the
// Pushgateway use) and linted with client_golang's promlint (what `promtool check metrics` runs).
// It prints the parsed families as JSON: {"families":[{"name","type","help","metrics":[{"labels":{},"value"}]}],"lint":[...]}.
// Exit 1 when parsing fails (the error on stderr).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

type metric struct {
	Labels map[string]string `json:"labels"`
	Value  float64           `json:"value"`
}

type family struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Help    string   `json:"help"`
	Metrics []metric `json:"metrics"`
}

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(in))
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	out := struct {
		Families []family `json:"families"`
		Lint     []string `json:"lint"`
	}{Lint: []string{}}
	for _, n := range names {
		mf := fams[n]
		f := family{Name: n, Type: mf.GetType().String(), Help: mf.GetHelp()}
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			v := m.GetGauge().GetValue()
			if mf.GetType().String() == "UNTYPED" {
				v = m.GetUntyped().GetValue()
			}
			f.Metrics = append(f.Metrics, metric{Labels: l, Value: v})
		}
		out.Families = append(out.Families, f)
	}
	problems, err := promlint.New(bytes.NewReader(in)).Lint()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lint:", err)
		os.Exit(1)
	}
	for _, p := range problems {
		out.Lint = append(out.Lint, p.Metric+": "+p.Text)
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}
