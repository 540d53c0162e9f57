package solver_test

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/schemas"
)

// BenchmarkSolve measures one offline repair per solver, the cost a
// solver stage adds to a sentence that failed verification.
func BenchmarkSolve(b *testing.B) {
	ye, yeConflict, lu := yeRefs(false), yeRefs(true), luRefs()
	for _, bc := range []struct {
		name string
		s    solver.Solver
		refs *schemas.ReferenceSet
		r    schemas.Repair
	}{
		{"era", solver.NewEra(solver.Config{}), ye, repair("叶向高", "万历十二年（1584年），叶向高举进士。", []string{chunkYe}, nil, 0,
			fv(ns, schemas.ErrorEra, relDate, "万历十二年", "万历十二年", ev(chunkYe, textYe, yeJinshi)),
			fv(ns, schemas.ErrorEra, relDate, "1584", "1584年"))},
		{"alias", solver.NewAlias(solver.Config{}), ye, repair("叶向高", "叶向高，字进德，福清人。", []string{chunkYe}, nil, 0,
			fv(ns, schemas.ErrorAlias, schemas.RelCourtesyName, "进德", "字进德", ev(chunkYe, textYe, "叶向高，字进卿")))},
		{"refconflict", solver.NewRefConflict(solver.Config{}), yeConflict, conflictRepair("叶向高，字进卿，福清人。", "福清")},
		{"knowledge", solver.NewKnowledge(solver.Config{Glossary: newFakeGlossary()}), lu, repair("陆文渊", "陆文渊举进士第三。", []string{chunkLu}, nil, 0,
			fv(ns, schemas.ErrorKnowledge, schemas.RelJinshi, "进士第三", "陆文渊举进士第三", ev(chunkLu, textLu, "举嘉靖二十年进士第二")))},
		{"regenerate", solver.NewRegenerate(solver.RegenerateConfig{}), ye, repair("叶向高", "叶向高，字进卿，福清人，尝游日本。", []string{chunkYe}, nil, 0,
			ok(schemas.RelCourtesyName, "进卿", "字进卿"), fv(ni, "", relText, "", "尝游日本"))},
	} {
		bc.r.Solver = bc.s.Name()
		ctx := context.Background()
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := bc.s.Solve(ctx, "t1", bc.refs, bc.r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
