package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
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

func (p *Policy) validateWaivers(l *errList, opt Options) {
	for i := range p.Waivers {
		key := fmt.Sprintf("waivers[%d]", i)
		p.checkWaiver(key, &p.Waivers[i], l, opt)
		p.Waivers[i].Source = fmt.Sprintf("%s:%d", p.Path, p.Line(key))
	}
}

// checkWaiver records every problem of one waiver.
func (p *Policy) checkWaiver(key string, w *finding.Waiver, l *errList, opt Options) {
	if w.Path == "" && w.Group == "" && w.Kernel == "" && w.Fingerprint == "" {
		l.add(p.Errorf(key, "a waiver needs at least one of path, group, kernel or fingerprint"))
	}
	if w.Reason == "" {
		l.add(p.Errorf(key, "reason is required: say why the findings are accepted"))
	}
	if w.Rule != "" && opt.RuleIDs != nil && !slices.Contains(opt.RuleIDs, w.Rule) {
		l.add(p.Errorf(key+".rule", "no such rule %q%s (see kpack-lint rules)", w.Rule, DidYouMean(w.Rule, opt.RuleIDs)))
	}
	for _, sel := range []struct{ name, glob string }{{"path", w.Path}, {"group", w.Group}, {"kernel", w.Kernel}} {
		if err := finding.CheckGlob(sel.glob); sel.glob != "" && err != nil {
			l.add(p.Errorf(key+"."+sel.name, "%v", err))
		}
	}
	if w.Expires != "" {
		if _, err := time.Parse(finding.DateLayout, w.Expires); err != nil {
			l.add(p.Errorf(key+".expires", "want a date YYYY-MM-DD, got %q", w.Expires))
		}
	}
}

// LoadWaivers reads a --waivers file: the same list as a policy's
// waivers: key, either at the top level or under "waivers:".
func LoadWaivers(path string) ([]finding.Waiver, error) { return LoadWaiversWith(path, Options{}) }

// LoadWaiversWith is LoadWaivers checking what opt says too (the rules
// waivers name). Every error of the file is reported at once: one
// *Error, or Errors in file order.
func LoadWaiversWith(path string, opt Options) ([]finding.Waiver, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		e := syntaxError(data, err)
		e.File = path
		return nil, e
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
	w.walk(root, reflect.TypeOf(waiverFile{}), "")
	schemaOK := len(w.errs.list) == 0
	var f waiverFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(schemaOK) // past schema errors, decode what reads so the values are checked too
	var decodeErr error
	if doc.Content[0].Kind == yaml.SequenceNode {
		decodeErr = dec.Decode(&f.Waivers)
	} else {
		decodeErr = dec.Decode(&f)
	}
	if decodeErr != nil && !errors.Is(decodeErr, io.EOF) && schemaOK {
		return nil, &Error{File: path, Msg: oneLine(decodeErr).Error()}
	}
	p.Waivers = f.Waivers
	p.validateWaivers(&w.errs, opt)
	if err := w.errs.err(path); err != nil {
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
