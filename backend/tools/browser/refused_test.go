package browser

import "testing"

func TestRefusedTargets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		step    stepResult
		refused []string
		ok      bool
	}{
		{"own target refused", stepResult{Action: VerbNavigate, OK: true, URL: "http://10.0.0.5/x"},
			[]string{"network: 10.0.0.5:80 refused (private-address): … To allow it: …"}, false},
		{"https default port", stepResult{Action: VerbNavigate, OK: true, URL: "https://Site.Example/"},
			[]string{"network: site.example:443 refused (no-approver). To allow it: …"}, false},
		{"another host refused, the target loaded", stepResult{Action: VerbNavigate, OK: true, URL: "http://site.example:8080/"},
			[]string{"network: cdn.example:443 refused (no-approver). To allow it: …"}, true},
		{"same host, other port", stepResult{Action: VerbNavigate, OK: true, URL: "http://site.example:8080/"},
			[]string{"network: site.example:80 refused (no-approver). To allow it: …"}, true},
		{"not a navigate", stepResult{Action: VerbClick, OK: true, URL: "http://10.0.0.5/"},
			[]string{"network: 10.0.0.5:80 refused (private-address)"}, true},
		{"no refusals", stepResult{Action: VerbNavigate, OK: true, URL: "http://10.0.0.5/"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := refusedTargets([]stepResult{tc.step}, tc.refused)[0]
			if got.OK != tc.ok {
				t.Errorf("OK = %v, want %v (%s)", got.OK, tc.ok, got.Text)
			}
		})
	}
}
