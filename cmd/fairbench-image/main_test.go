package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readBlob reads a blob of the layout, checking that its content has the
// digest it is named by and the size its descriptor says.
func readBlob(t *testing.T, dir string, d descriptor) []byte {
	t.Helper()
	hexsum, ok := strings.CutPrefix(d.Digest, "sha256:")
	if !ok {
		t.Fatalf("digest %q is not sha256", d.Digest)
	}
	b, err := os.ReadFile(filepath.Join(dir, "blobs", "sha256", hexsum))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != hexsum {
		t.Fatalf("blob %s: content digest is sha256:%x", d.Digest, sum)
	}
	if int64(len(b)) != d.Size {
		t.Fatalf("blob %s: %d bytes, descriptor says %d", d.Digest, len(b), d.Size)
	}
	return b
}

func decodeJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// layerFiles unpacks a gzip'd tar layer, checking its diff_id.
func layerFiles(t *testing.T, gz []byte, diffID string) map[string]*tar.Header {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("sha256:%x", sha256.Sum256(raw)); got != diffID {
		t.Errorf("layer diff_id %s, config says %s", got, diffID)
	}
	files := map[string]*tar.Header{}
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		h.PAXRecords = map[string]string{"content": string(data)} // carried for the assertions
		files[h.Name] = h
	}
	return files
}

// checkImage reads one platform's manifest and checks config and layer.
func checkImage(t *testing.T, dir string, d descriptor, arch string, binary []byte, ca []byte) {
	t.Helper()
	if d.MediaType != mediaManifest || d.Platform == nil || d.Platform.Architecture != arch || d.Platform.OS != "linux" {
		t.Fatalf("manifest descriptor %+v, want a %s linux manifest", d, arch)
	}
	var m manifest
	decodeJSON(t, readBlob(t, dir, d), &m)
	if m.SchemaVersion != 2 || m.MediaType != mediaManifest || m.Config.MediaType != mediaConfig || len(m.Layers) != 1 || m.Layers[0].MediaType != mediaLayer {
		t.Fatalf("manifest %+v", m)
	}
	var cfg imageConfig
	decodeJSON(t, readBlob(t, dir, m.Config), &cfg)
	if cfg.Architecture != arch || cfg.OS != "linux" {
		t.Errorf("config architecture %q os %q, want %s linux", cfg.Architecture, cfg.OS, arch)
	}
	if arch == "arm64" && cfg.Variant != "v8" {
		t.Errorf("arm64 config variant %q, want v8", cfg.Variant)
	}
	if !reflect.DeepEqual(cfg.Config.Entrypoint, []string{"/fairbench"}) || cfg.Config.User != "65532:65532" {
		t.Errorf("config entrypoint %q user %q", cfg.Config.Entrypoint, cfg.Config.User)
	}
	if cfg.RootFS.Type != "layers" || len(cfg.RootFS.DiffIDs) != 1 {
		t.Fatalf("config rootfs %+v", cfg.RootFS)
	}
	files := layerFiles(t, readBlob(t, dir, m.Layers[0]), cfg.RootFS.DiffIDs[0])
	bin := files["fairbench"]
	if bin == nil || bin.Typeflag != tar.TypeReg || bin.Mode != 0o755 || bin.PAXRecords["content"] != string(binary) {
		t.Errorf("layer's /fairbench %+v is not the binary, mode 0755", bin)
	}
	if p := files["etc/passwd"]; p == nil || !strings.Contains(p.PAXRecords["content"], "nonroot:x:65532:65532:") {
		t.Errorf("layer's /etc/passwd lacks the nonroot user 65532: %+v", p)
	}
	if tmp := files["tmp/"]; tmp == nil || tmp.Typeflag != tar.TypeDir || tmp.Mode != 0o1777 {
		t.Errorf("layer's /tmp %+v is not a 1777 directory", tmp)
	}
	if ca != nil {
		if c := files["etc/ssl/certs/ca-certificates.crt"]; c == nil || c.PAXRecords["content"] != string(ca) {
			t.Errorf("layer lacks the CA bundle")
		}
	}
}

func TestImageWriteLayoutMultiArch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "oci")
	amd, arm := []byte("\x7fELF fake amd64 fairbench"), []byte("\x7fELF fake arm64 fairbench")
	ca := []byte("-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n")
	images := []image{
		{platform{Architecture: "amd64", OS: "linux"}, amd},
		{platform{Architecture: "arm64", OS: "linux", Variant: "v8"}, arm},
	}
	if err := writeLayout(dir, "fairbench:test", images, ca); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "oci-layout")); err != nil || string(b) != `{"imageLayoutVersion":"1.0.0"}` {
		t.Errorf("oci-layout %q (%v)", b, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var top index
	decodeJSON(t, b, &top)
	if top.SchemaVersion != 2 || len(top.Manifests) != 1 || top.Manifests[0].MediaType != mediaIndex ||
		top.Manifests[0].Annotations[annotRefName] != "fairbench:test" {
		t.Fatalf("index.json %s: want one image index named fairbench:test", b)
	}
	var multi index
	decodeJSON(t, readBlob(t, dir, top.Manifests[0]), &multi)
	if len(multi.Manifests) != 2 {
		t.Fatalf("image index lists %d manifests, want 2", len(multi.Manifests))
	}
	checkImage(t, dir, multi.Manifests[0], "amd64", amd, ca)
	checkImage(t, dir, multi.Manifests[1], "arm64", arm, ca)

	// Same input, same digests: the layout is reproducible.
	again := filepath.Join(t.TempDir(), "oci")
	if err := writeLayout(again, "fairbench:test", images, ca); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(filepath.Join(again, "index.json")); !bytes.Equal(b, b2) {
		t.Errorf("a second layout of the same binaries differs:\n%s\n%s", b, b2)
	}
	if err := writeLayout(dir, "fairbench:test", images, ca); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("writing into a non-empty directory: %v, want a refusal", err)
	}
}

// TestImageRunCrossBuildsSinglePlatform runs the program end to end on a tiny
// package for arm64, whatever the machine: one manifest straight in
// index.json, holding an arm64 ELF binary.
func TestImageRunCrossBuildsSinglePlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	dir := filepath.Join(t.TempDir(), "oci")
	if err := run([]string{"--oci", dir, "--platform", "linux/arm64", "--tag", "hello:1", "--pkg", "./testdata/hello", "--ca-bundle", ""}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var top index
	decodeJSON(t, b, &top)
	if len(top.Manifests) != 1 || top.Manifests[0].Annotations[annotRefName] != "hello:1" {
		t.Fatalf("index.json %s: want one manifest named hello:1", b)
	}
	var m manifest
	decodeJSON(t, readBlob(t, dir, top.Manifests[0]), &m)
	var cfg imageConfig
	decodeJSON(t, readBlob(t, dir, m.Config), &cfg)
	files := layerFiles(t, readBlob(t, dir, m.Layers[0]), cfg.RootFS.DiffIDs[0])
	bin := files["fairbench"]
	if bin == nil {
		t.Fatal("no /fairbench in the layer")
	}
	f, err := elf.NewFile(strings.NewReader(bin.PAXRecords["content"]))
	if err != nil {
		t.Fatalf("/fairbench is not an ELF binary: %v", err)
	}
	if f.Machine != elf.EM_AARCH64 {
		t.Errorf("/fairbench is built for %v, want EM_AARCH64", f.Machine)
	}
	if _, ok := files["etc/ssl/certs/ca-certificates.crt"]; ok {
		t.Errorf("--ca-bundle \"\" still packed a CA bundle")
	}
	checkImage(t, dir, top.Manifests[0], "arm64", []byte(bin.PAXRecords["content"]), nil)
}

func TestImageRefusesUnknownPlatform(t *testing.T) {
	err := run([]string{"--oci", t.TempDir(), "--platform", "linux/s390x", "--ca-bundle", ""})
	if err == nil || !strings.Contains(err.Error(), `--platform "linux/s390x"`) {
		t.Errorf("err %v, want a refusal naming linux/s390x", err)
	}
}
