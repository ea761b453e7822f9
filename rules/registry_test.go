package rules

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocm-tools/kpack-lint/finding"
)

// TestRegistry fails on a duplicated or malformed ID or name, a rule
// without documentation or checks, and a registry out of ID order.
func TestRegistry(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("registry: no rules")
	}
	for i, r := range all { // KPL001, KPL002, ...: numbered without gaps
		if want := fmt.Sprintf("KPL%03d", i+1); r.ID != want {
			t.Fatalf("registry: rule %d is %s, want %s (IDs are numbered without gaps, in order)", i, r.ID, want)
		}
	}
	ids, names := map[string]bool{}, map[string]bool{}
	for i, r := range registry {
		if i > 0 && registry[i-1].ID >= r.ID {
			t.Errorf("registry not sorted, or %s duplicated", r.ID)
		}
		if ids[r.ID] {
			t.Errorf("duplicated ID %s", r.ID)
		}
		ids[r.ID] = true
		if !regexp.MustCompile(`^KPL\d{3}$`).MatchString(r.ID) || !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(r.Name) {
			t.Errorf("%s %s: want an ID KPLnnn and a kebab-case name", r.ID, r.Name)
		}
		if names[r.Name] {
			t.Errorf("%s: duplicate name %s", r.ID, r.Name)
		}
		names[r.Name] = true
		if r.Title == "" || r.Text == "" || r.Help == "" || r.HelpURI == "" || r.Level.Rank() == 0 {
			t.Errorf("%s: incomplete documentation", r.ID)
		}
		if len(r.Checks) == 0 {
			t.Errorf("%s: no checks", r.ID)
		}
	}
	if r, ok := ByID("KPL002"); !ok || r.Level != finding.LevelWarning || r.Name != "legacy-loader-shadowing" {
		t.Errorf("ByID(KPL002) = %+v", r)
	}
	if _, ok := ByID("KPL099"); ok {
		t.Error("ByID found KPL099")
	}
}

// TestEveryRuleRegistered reads the package's sources: every Rule value
// declared must be in the registry, in a file named after its ID
// (kpl001_*.go), and every rule ID a source file mentions (messages that
// point to another rule) must be a registered one.
func TestEveryRuleRegistered(t *testing.T) {
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	declared := map[string]string{} // ID -> file
	idRE := regexp.MustCompile(`KPL\d{3}`)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					if id, ok := ruleID(v); ok {
						if prev, dup := declared[id]; dup {
							t.Errorf("%s declared in %s and %s", id, prev, name)
						}
						declared[id] = name
						if !strings.HasPrefix(name, strings.ToLower(id)+"_") {
							t.Errorf("%s is declared in %s, want %s_*.go", id, name, strings.ToLower(id))
						}
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				for _, id := range idRE.FindAllString(lit.Value, -1) {
					if _, ok := ByID(id); !ok {
						t.Errorf("%s mentions %s, which is no rule", fset.Position(lit.Pos()), id)
					}
				}
			}
			return true
		})
	}
	for id, file := range declared {
		if _, ok := ByID(id); !ok {
			t.Errorf("%s (%s) is not in the registry", id, file)
		}
	}
	if len(declared) != len(registry) {
		t.Errorf("%d rules declared, %d registered", len(declared), len(registry))
	}
}

// ruleID returns the ID of a Rule composite literal (Rule{Rule:
// finding.Rule{ID: "..."}}), ok false for other expressions.
func ruleID(e ast.Expr) (string, bool) {
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = u.X
	}
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return "", false
	}
	if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "Rule" {
		return "", false
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		doc, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			continue
		}
		for _, del := range doc.Elts {
			if kv, ok := del.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == "ID" {
				if s, ok := kv.Value.(*ast.BasicLit); ok {
					id, _ := strconv.Unquote(s.Value)
					return id, true
				}
			}
		}
	}
	return "", true // a Rule without an ID: reported as not registered
}
