package desktop

import (
	"reflect"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

func TestWebviewSettings(t *testing.T) {
	lean := map[string]string{"GDK_GL": "disable"}
	cases := []struct {
		name    string
		env     map[string]string
		policy  linux.WebviewGpuPolicy
		wantSet map[string]string
	}{
		{"clean environment gets the lean defaults", nil, linux.WebviewGpuPolicyNever, lean},
		{"a value the user set is kept", map[string]string{"GDK_GL": "always"}, linux.WebviewGpuPolicyNever, nil},
		{"an empty value the user set is kept too", map[string]string{"GDK_GL": ""}, linux.WebviewGpuPolicyNever, nil},
		{"unrelated variables change nothing", map[string]string{"WEBKIT_DISABLE_DMABUF_RENDERER": "1"}, linux.WebviewGpuPolicyNever, lean},
		{"opting into the GPU sets nothing", map[string]string{gpuEnv: "1"}, linux.WebviewGpuPolicyOnDemand, nil},
		{"any other GPU value keeps the lean defaults", map[string]string{gpuEnv: "yes"}, linux.WebviewGpuPolicyNever, lean},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
			policy, set := webviewSettings(lookup)
			if policy != c.policy {
				t.Errorf("policy = %v, want %v", policy, c.policy)
			}
			if len(set) != len(c.wantSet) || (len(set) > 0 && !reflect.DeepEqual(set, c.wantSet)) {
				t.Errorf("set = %v, want %v", set, c.wantSet)
			}
		})
	}
}
