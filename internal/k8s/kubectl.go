package k8s

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// Kubectl drives a cluster through the user's kubectl: the same binary, the
// same kubeconfig and context, the same RBAC as their own `kubectl apply`;
// fairbench carries no Kubernetes client of its own (client-go would more
// than double the binary for five verbs).
type Kubectl struct {
	// Path is the kubectl binary ("" = kubectl on PATH).
	Path string
	// Context and Namespace, when set, are passed as --context and
	// --namespace to every call.
	Context, Namespace string
}

// maxKubectlOutput bounds what one kubectl call may print (a pod list of a
// busy namespace is still far below it).
const maxKubectlOutput = 32 << 20

func (k Kubectl) command(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	path := k.Path
	if path == "" {
		path = "kubectl"
	}
	var pre []string
	if k.Context != "" {
		pre = append(pre, "--context", k.Context)
	}
	if k.Namespace != "" {
		pre = append(pre, "--namespace", k.Namespace)
	}
	cmd := exec.CommandContext(ctx, path, append(pre, args...)...)
	cmd.Stdin = stdin
	var out, errOut limitedBuffer
	out.max, errOut.max = maxKubectlOutput, 64<<10
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("kubectl %s: %s", args[0], msg)
	}
	if out.over {
		return nil, fmt.Errorf("kubectl %s: output above %d MiB", args[0], maxKubectlOutput>>20)
	}
	return out.Bytes(), nil
}

// limitedBuffer keeps at most max bytes and notes that more came.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// Apply creates or updates the objects of a manifest stream.
func (k Kubectl) Apply(ctx context.Context, manifests []byte) error {
	_, err := k.command(ctx, bytes.NewReader(manifests), "apply", "-f", "-")
	return err
}

// Pod is what `k8s run` follows of one pod.
type Pod struct {
	Name      string
	Component string // "generator" or "coordinator"
	Index     string // a generator's completion index
	Node      string
	Phase     string // Pending, Running, Succeeded, Failed
	// Waiting is why its container waits ("ErrImagePull: …"), or why it is
	// not scheduled ("Unschedulable: …"); "" otherwise.
	Waiting string
	// Reason says how its container ended ("Error, exit code 1").
	Reason  string
	Created time.Time
}

// Pods lists the pods carrying label=value, by component and name.
func (k Kubectl) Pods(ctx context.Context, label, value string) ([]Pod, error) {
	out, err := k.command(ctx, nil, "get", "pods", "-l", label+"="+value, "-o", "json")
	if err != nil {
		return nil, err
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string            `json:"name"`
				Labels            map[string]string `json:"labels"`
				Annotations       map[string]string `json:"annotations"`
				CreationTimestamp time.Time         `json:"creationTimestamp"`
			} `json:"metadata"`
			Spec struct {
				NodeName string `json:"nodeName"`
			} `json:"spec"`
			Status struct {
				Phase      string `json:"phase"`
				Conditions []struct {
					Type    string `json:"type"`
					Status  string `json:"status"`
					Reason  string `json:"reason"`
					Message string `json:"message"`
				} `json:"conditions"`
				ContainerStatuses []struct {
					State struct {
						Waiting *struct {
							Reason  string `json:"reason"`
							Message string `json:"message"`
						} `json:"waiting"`
						Terminated *struct {
							Reason   string `json:"reason"`
							ExitCode int    `json:"exitCode"`
						} `json:"terminated"`
					} `json:"state"`
				} `json:"containerStatuses"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("kubectl get pods: %w", err)
	}
	pods := make([]Pod, 0, len(list.Items))
	for _, it := range list.Items {
		p := Pod{
			Name:      it.Metadata.Name,
			Component: it.Metadata.Labels[labelComponent],
			Index:     it.Metadata.Annotations["batch.kubernetes.io/job-completion-index"],
			Node:      it.Spec.NodeName,
			Phase:     it.Status.Phase,
			Created:   it.Metadata.CreationTimestamp,
		}
		for _, c := range it.Status.Conditions {
			if c.Type == "PodScheduled" && c.Status == "False" {
				p.Waiting = strings.TrimSpace(c.Reason + ": " + c.Message)
			}
		}
		for _, cs := range it.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
				p.Waiting = strings.TrimSuffix(strings.TrimSpace(w.Reason+": "+w.Message), ":")
			}
			if t := cs.State.Terminated; t != nil {
				p.Reason = fmt.Sprintf("%s, exit code %d", t.Reason, t.ExitCode)
			}
		}
		pods = append(pods, p)
	}
	sort.Slice(pods, func(i, j int) bool {
		if pods[i].Component != pods[j].Component {
			return pods[i].Component > pods[j].Component // generators first
		}
		return pods[i].Name < pods[j].Name
	})
	return pods, nil
}

// JobFailed says whether a Job carrying label=value (and, when component is
// not "", that component's) has failed, and why (the Job controller's
// condition: a pod deleted or failed with no retry left, a deadline).
func (k Kubectl) JobFailed(ctx context.Context, label, value, component string) (string, error) {
	sel := label + "=" + value
	if component != "" {
		sel += "," + labelComponent + "=" + component
	}
	out, err := k.command(ctx, nil, "get", "jobs", "-l", sel, "-o", "json")
	if err != nil {
		return "", err
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Status struct {
				Conditions []struct {
					Type    string `json:"type"`
					Status  string `json:"status"`
					Reason  string `json:"reason"`
					Message string `json:"message"`
				} `json:"conditions"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return "", fmt.Errorf("kubectl get jobs: %w", err)
	}
	for _, j := range list.Items {
		for _, c := range j.Status.Conditions {
			if (c.Type == "Failed" || c.Type == "FailureTarget") && c.Status == "True" {
				return fmt.Sprintf("job %s failed: %s %s", j.Metadata.Name, c.Reason, c.Message), nil
			}
		}
	}
	return "", nil
}

// Logs returns the last lines of a pod's log ("" when it has none yet).
func (k Kubectl) Logs(ctx context.Context, pod string, lines int) string {
	out, err := k.command(ctx, nil, "logs", pod, fmt.Sprintf("--tail=%d", lines))
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}

// Events returns the events about a pod, oldest first, one per line.
func (k Kubectl) Events(ctx context.Context, pod string) string {
	out, err := k.command(ctx, nil, "get", "events", "--field-selector", "involvedObject.name="+pod,
		"--sort-by=.lastTimestamp", "-o", "custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message", "--no-headers")
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}

// Delete deletes every ConfigMap and Job carrying label=value, and waits
// (bounded by ctx) until their pods are gone: the Jobs' pods go with them
// (foreground propagation).
func (k Kubectl) Delete(ctx context.Context, label, value string) error {
	sel := label + "=" + value
	if _, err := k.command(ctx, nil, "delete", "jobs,configmaps", "-l", sel, "--cascade=foreground", "--wait=false", "--ignore-not-found"); err != nil {
		return err
	}
	for {
		pods, err := k.Pods(ctx, label, value)
		if err != nil {
			return err
		}
		out, err := k.command(ctx, nil, "get", "jobs,configmaps", "-l", sel, "-o", "name")
		if err != nil {
			return err
		}
		if len(pods) == 0 && len(bytes.TrimSpace(out)) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			left := strings.Fields(string(out))
			for _, p := range pods {
				left = append(left, "pod/"+p.Name)
			}
			return fmt.Errorf("still there after the deadline: %s (kubectl delete jobs,configmaps,pods -l %s)", strings.Join(left, ", "), sel)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// ErrNoKubectl is returned when kubectl cannot be run at all.
var ErrNoKubectl = errors.New("kubectl is not installed or not on PATH: k8s run drives the cluster through it (give --kubectl PATH)")

// Check runs `kubectl version --client` and confirms the cluster answers.
func (k Kubectl) Check(ctx context.Context) error {
	path := k.Path
	if path == "" {
		path = "kubectl"
	}
	if _, err := exec.LookPath(path); err != nil {
		return ErrNoKubectl
	}
	if _, err := k.command(ctx, nil, "get", "--raw", "/readyz"); err != nil {
		return fmt.Errorf("the cluster does not answer (%w): check kubectl's context (kubectl config current-context)", err)
	}
	return nil
}
