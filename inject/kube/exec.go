package kube

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
)

// apiExec runs commands in containers through the API server's pods/exec.
type apiExec struct {
	cfg *rest.Config
	c   kubernetes.Interface
}

// NewExec returns the Exec of pod-kill for a client built from cfg.
func NewExec(cfg *rest.Config, c kubernetes.Interface) Exec { return &apiExec{cfg: cfg, c: c} }

func (e *apiExec) Exec(ctx context.Context, ns, pod, container string, cmd []string) (string, string, error) {
	req := e.c.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: cmd, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(e.cfg, "POST", req.URL())
	if err != nil {
		return "", "", fmt.Errorf("kube: exec in %s/%s: %w", ns, pod, err)
	}
	var out, errb bytes.Buffer
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), err
}
