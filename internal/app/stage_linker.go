package app

import (
	"errors"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/topology"
)

// linkerStage links every chunk to the persons it names (consumers/linker)
// and links stored chunks again when kg-updates bring new names.
var linkerStage = Stage{
	Stage: topology.Stage{Name: topology.StageLinker, Reads: []string{topology.Chunks, topology.KGUpdates},
		Writes: []string{topology.KGUpdates},
		Doc:    "entity linking of every chunk against the KG's names (Aho-Corasick), with bounded backfill"},
	Part: PartIngest, Progress: true, Build: buildLinker,
}

func buildLinker(a *App) (pipeline.BatchHandler, error) {
	if a.KG == nil || a.Chunks == nil {
		return nil, errors.New("linker needs redis")
	}
	st, err := linker.New(a.KG, a.Chunks, linker.Config{Eras: a.eraTable()})
	if err != nil {
		return nil, err
	}
	return st.Handler(), nil
}
