package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rocm-tools/kpack-lint/finding"
	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
)

// waiverFile is a --waivers file: a list of waivers, or a map holding one
// under "waivers" (so a policy's waivers: block can be copied as it is).
type waiverFile struct {
	Waivers []finding.Waiver `yaml:"waivers"`
}

// SetPath renames the file the policy came from in reports (Path), and
// the sources of its waivers with it. Errors keep naming the file as it
// was loaded, as the user gave it.
func (p *Policy) SetPath(path string) {
	if p.loaded == "" {
		p.loaded = p.Path
	}
	p.Path = path
	for i := range p.Waivers {
		p.Waivers[i].Source = fmt.Sprintf("%s:%d", path, p.Line(fmt.Sprintf("waivers[%d]", i)))
	}
}

// SetWaiverFile renames the file waivers were read from (LoadWaivers).
func SetWaiverFile(ws []finding.Waiver, path string) {
	for i := range ws {
		if j := strings.LastIndexByte(ws[i].Source, ':'); j >= 0 {
			ws[i].Source = path + ws[i].Source[j:]
		}
	}
}

func (p *Policy) validateWaivers() error {
	for i := range p.Waivers {
		key := fmt.Sprintf("waivers[%d]", i)
		if err := p.checkWaiver(key, &p.Waivers[i]); err != nil {
			return err
		}
		p.Waivers[i].Source = fmt.Sprintf("%s:%d", p.Path, p.Line(key))
	}
	return nil
}

func (p *Policy) checkWaiver(key string, w *finding.Waiver) error {
	if w.Path == "" && w.Group == "" && w.Kernel == "" && w.Fingerprint == "" {
		return p.Errorf(key, "a waiver needs at least one of path, group, kernel or fingerprint")
	}
	if w.Reason == "" {
		return p.Errorf(key, "reason is required: say why the findings are accepted")
	}
	for sel, g := range map[string]string{"path": w.Path, "group": w.Group, "kernel": w.Kernel} {
		if err := finding.CheckGlob(g); g != "" && err != nil {
			return p.Errorf(key+"."+sel, "%v", err)
		}
	}
	if w.Expires != "" {
		if _, err := time.Parse(finding.DateLayout, w.Expires); err != nil {
			return p.Errorf(key+".expires", "want a date YYYY-MM-DD, got %q", w.Expires)
		}
	}
	return nil
}

// LoadWaivers reads a --waivers file: the same list as a policy's
// waivers: key, either at the top level or under "waivers:".
func LoadWaivers(path string) ([]finding.Waiver, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: path, Msg: oneLine(err).Error()}
	}
	if err := checkAliases(&doc); err != nil {
		err.(*Error).File = path
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	p := &Policy{lines: map[string]int{}, Path: path}
	w := walker{lines: p.lines}
	root := doc.Content[0]
	if root.Kind == yaml.SequenceNode {
		// A bare list: walk it as waivers: [...].
		root = &yaml.Node{Kind: yaml.MappingNode, Line: root.Line,
			Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "waivers", Line: root.Line}, root}}
	}
	if err := w.walk(root, reflect.TypeOf(waiverFile{}), ""); err != nil {
		err.(*Error).File = path
		return nil, err
	}
	var f waiverFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var decodeErr error
	if doc.Content[0].Kind == yaml.SequenceNode {
		decodeErr = dec.Decode(&f.Waivers)
	} else {
		decodeErr = dec.Decode(&f)
	}
	if decodeErr != nil && !errors.Is(decodeErr, io.EOF) {
		return nil, &Error{File: path, Msg: oneLine(decodeErr).Error()}
	}
	p.Waivers = f.Waivers
	if err := p.validateWaivers(); err != nil {
		return nil, err
	}
	return p.Waivers, nil
}

// readLimited reads a file of at most MaxSize bytes; a larger one is an
// error naming it.
func readLimited(path string) ([]byte, error) {
	data, err := fsutil.ReadFile(path, MaxSize) // a FIFO or device must not hang the run
	var big *fsutil.TooLargeError
	if errors.As(err, &big) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, err
}
