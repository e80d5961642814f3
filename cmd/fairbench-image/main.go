// Command fairbench-image writes the fairbench container image as an OCI image
// layout (oci-layout, index.json, blobs/sha256/…) without a container engine:
// it cross-builds the static binary for each platform with the Go toolchain and
// packs one layer (/fairbench, /etc/passwd and /etc/group with the nonroot user
// 65532, /tmp, and the build machine's CA bundle so that TLS to targets works).
//
// It exists because building the Dockerfile needs a Docker, Podman or Buildah
// engine, which CI machines and laptops do not always run; scripts/image.sh
// --oci DIR calls it. The layout loads with `skopeo copy oci:DIR:TAG
// docker-daemon:TAG` or pushes with `skopeo copy oci:DIR:TAG docker://REPO:TAG`
// (`crane push DIR REPO` works too). Standard library only: it must build
// wherever fairbench builds.
//
// Usage:
//
//	go run ./cmd/fairbench-image --oci DIR [--platform linux/amd64,linux/arm64] [--tag TAG] [--version V]
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Media types of the OCI image spec.
const (
	mediaIndex    = "application/vnd.oci.image.index.v1+json"
	mediaManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig   = "application/vnd.oci.image.config.v1+json"
	mediaLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
	annotRefName  = "org.opencontainers.image.ref.name"
	annotCreated  = "org.opencontainers.image.created"
	nonroot       = 65532
	binaryPath    = "fairbench"
)

// epoch stamps every file and the config: the same binary gives the same
// image digest, whenever it is packed.
var epoch = time.Unix(0, 0).UTC()

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    *platform         `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type platform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Variant      string `json:"variant,omitempty"`
}

type index struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Manifests     []descriptor      `json:"manifests"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

type manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        descriptor   `json:"config"`
	Layers        []descriptor `json:"layers"`
}

type imageConfig struct {
	Created      time.Time `json:"created"`
	Architecture string    `json:"architecture"`
	OS           string    `json:"os"`
	Variant      string    `json:"variant,omitempty"`
	Config       struct {
		User       string   `json:"User"`
		Entrypoint []string `json:"Entrypoint"`
		Env        []string `json:"Env"`
		WorkingDir string   `json:"WorkingDir"`
	} `json:"config"`
	RootFS struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
	History []struct {
		Created   time.Time `json:"created"`
		CreatedBy string    `json:"created_by"`
	} `json:"history"`
}

// image is one platform's content.
type image struct {
	platform platform
	binary   []byte
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fairbench-image: "+err.Error())
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("fairbench-image", flag.ContinueOnError)
	dir := fs.String("oci", "", "write the OCI image layout to this directory (required; created, must be empty or absent)")
	platforms := fs.String("platform", "linux/"+runtime.GOARCH, "comma-separated platforms: linux/amd64, linux/arm64")
	tag := fs.String("tag", "fairbench:latest", "the ref name in index.json (skopeo's oci:DIR:TAG)")
	version := fs.String("version", "0.1.0-dev", "version stamped into the binary")
	pkg := fs.String("pkg", "./cmd/fairbench", "Go package to build")
	caBundle := fs.String("ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA certificates copied to the same path in the image (\"\" for none: then TLS peers cannot be verified)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() > 0 {
		return errors.New("usage: fairbench-image --oci DIR [--platform linux/amd64,linux/arm64] [--tag TAG] [--version V]")
	}
	var ca []byte
	if *caBundle != "" {
		b, err := os.ReadFile(*caBundle)
		if err != nil {
			return fmt.Errorf("--ca-bundle: %w (give --ca-bundle \"\" to build an image without CA certificates)", err)
		}
		ca = b
	}
	var images []image
	for _, p := range strings.Split(*platforms, ",") {
		plat, err := parsePlatform(strings.TrimSpace(p))
		if err != nil {
			return err
		}
		bin, err := build(*pkg, plat, *version)
		if err != nil {
			return err
		}
		images = append(images, image{plat, bin})
	}
	if err := writeLayout(*dir, *tag, images, ca); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "fairbench-image: wrote %s (%s, ref %s); load it with: skopeo copy oci:%s:%s docker-daemon:%s\n",
		*dir, *platforms, *tag, *dir, *tag, *tag)
	return nil
}

func parsePlatform(s string) (platform, error) {
	switch s {
	case "linux/amd64":
		return platform{Architecture: "amd64", OS: "linux"}, nil
	case "linux/arm64", "linux/arm64/v8":
		return platform{Architecture: "arm64", OS: "linux", Variant: "v8"}, nil
	}
	return platform{}, fmt.Errorf("--platform %q: linux/amd64 and linux/arm64 are supported", s)
}

// build cross-compiles pkg for plat: static (CGO_ENABLED=0), -trimpath, as
// the Dockerfile does.
func build(pkg string, plat platform, version string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "fairbench-image")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "fairbench")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X github.com/fairbench/fairbench/internal/version.Version="+version,
		"-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+plat.OS, "GOARCH="+plat.Architecture)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build %s for %s/%s: %w", pkg, plat.OS, plat.Architecture, err)
	}
	return os.ReadFile(out)
}

// writeLayout writes the layout: one manifest per image; with several
// platforms an image index lists them, so that TAG names the multi-arch
// image as a registry would.
func writeLayout(dir, tag string, images []image, ca []byte) error {
	if len(images) == 0 {
		return errors.New("no platform to build")
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("--oci %s: directory is not empty (an OCI layout is written into an empty or new directory)", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
		return err
	}
	var manifests []descriptor
	for _, img := range images {
		d, err := writeImage(dir, img, ca)
		if err != nil {
			return err
		}
		manifests = append(manifests, d)
	}
	top := manifests[0]
	if len(manifests) > 1 {
		b, err := json.Marshal(index{SchemaVersion: 2, MediaType: mediaIndex, Manifests: manifests})
		if err != nil {
			return err
		}
		top, err = writeBlob(dir, mediaIndex, b)
		if err != nil {
			return err
		}
	}
	top.Annotations = map[string]string{annotRefName: tag, annotCreated: epoch.Format(time.RFC3339)}
	b, err := json.Marshal(index{SchemaVersion: 2, MediaType: mediaIndex, Manifests: []descriptor{top}})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644)
}

func writeImage(dir string, img image, ca []byte) (descriptor, error) {
	layerTar, err := layer(img.binary, ca)
	if err != nil {
		return descriptor{}, err
	}
	diffID := sha256.Sum256(layerTar)
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return descriptor{}, err
	}
	zw.ModTime = epoch
	if _, err := zw.Write(layerTar); err != nil {
		return descriptor{}, err
	}
	if err := zw.Close(); err != nil {
		return descriptor{}, err
	}
	layerDesc, err := writeBlob(dir, mediaLayer, gz.Bytes())
	if err != nil {
		return descriptor{}, err
	}

	var cfg imageConfig
	cfg.Created = epoch
	cfg.Architecture, cfg.OS, cfg.Variant = img.platform.Architecture, img.platform.OS, img.platform.Variant
	cfg.Config.User = fmt.Sprintf("%d:%d", nonroot, nonroot)
	cfg.Config.Entrypoint = []string{"/" + binaryPath}
	cfg.Config.Env = []string{"PATH=/", "HOME=/tmp", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cfg.Config.WorkingDir = "/tmp"
	cfg.RootFS.Type = "layers"
	cfg.RootFS.DiffIDs = []string{"sha256:" + hex.EncodeToString(diffID[:])}
	cfg.History = append(cfg.History, struct {
		Created   time.Time `json:"created"`
		CreatedBy string    `json:"created_by"`
	}{epoch, "fairbench-image: static fairbench, /etc/passwd (nonroot 65532), /tmp"})
	cb, err := json.Marshal(cfg)
	if err != nil {
		return descriptor{}, err
	}
	cfgDesc, err := writeBlob(dir, mediaConfig, cb)
	if err != nil {
		return descriptor{}, err
	}
	mb, err := json.Marshal(manifest{SchemaVersion: 2, MediaType: mediaManifest, Config: cfgDesc, Layers: []descriptor{layerDesc}})
	if err != nil {
		return descriptor{}, err
	}
	d, err := writeBlob(dir, mediaManifest, mb)
	if err != nil {
		return descriptor{}, err
	}
	p := img.platform
	d.Platform = &p
	return d, nil
}

// layer is the image's one file system layer, as an uncompressed tar.
func layer(binary, ca []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, ModTime: epoch, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/tmp:/sbin/nologin\n", nonroot, nonroot)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonroot)
	steps := []func() error{
		func() error { return dir("etc", 0o755) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
	}
	if ca != nil {
		steps = append(steps,
			func() error { return dir("etc/ssl", 0o755) },
			func() error { return dir("etc/ssl/certs", 0o755) },
			func() error { return file("etc/ssl/certs/ca-certificates.crt", 0o644, ca) })
	}
	steps = append(steps,
		// Sticky and world-writable, as /tmp is everywhere; the pods mount
		// an emptyDir over it, `docker run` uses this one.
		func() error { return dir("tmp", 0o1777) },
		func() error { return file(binaryPath, 0o755, binary) },
		tw.Close)
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// writeBlob stores b under its digest and returns its descriptor.
func writeBlob(dir, mediaType string, b []byte) (descriptor, error) {
	sum := sha256.Sum256(b)
	hexsum := hex.EncodeToString(sum[:])
	path := filepath.Join(dir, "blobs", "sha256", hexsum)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return descriptor{}, err
	}
	return descriptor{MediaType: mediaType, Digest: "sha256:" + hexsum, Size: int64(len(b))}, nil
}
