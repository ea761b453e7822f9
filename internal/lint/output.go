package lint

import (
	"bytes"
	"fmt"

	"github.com/rocm-tools/kpack-lint/internal/util/fsutil"
	"github.com/rocm-tools/kpack-lint/report"
)

// write is the last stage: every report of cfg.Report.Outputs is rendered
// into memory first, so a failed render writes no file, then the files
// are written (each replaced whole: fsutil.WriteFile) and stdout. Only
// stdout (and "-") gets colours.
func write(cfg *Config, run report.Run) error {
	type rendered struct {
		path string
		data []byte
	}
	var all []rendered
	for _, o := range cfg.Report.Outputs {
		r := run
		r.Color = o.Path == "-" && cfg.Report.Color
		var buf bytes.Buffer
		if err := report.Write(&buf, o.Format, r); err != nil {
			return err
		}
		all = append(all, rendered{o.Path, buf.Bytes()})
	}
	for _, r := range all {
		var err error
		if r.path == "-" {
			_, err = cfg.Report.Stdout.Write(r.data)
		} else {
			err = fsutil.WriteFile(r.path, r.data) // temp file + rename: a failed write keeps the old report
		}
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
	}
	return nil
}
