package kg

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/schemas"
)

//go:embed retract.lua
var retractSource string

var retractScript = goredis.NewScript(nodeSource + retractSource)

// aliasRelations are the relations whose tail is a surface form of the
// head (schemas.AliasRelation), for retract.lua.
var aliasRelations = strings.Join([]string{schemas.RelCourtesyName, schemas.RelArtName, schemas.RelAlias}, "\t")

// Retract removes, in one script, what the retracted document r.DocID left
// in the tenant's graph and chunk store, and returns the updates to
// publish: one per entity that lost an edge, a mention or linked chunk, or
// an alias (Removed*, Reason and DocIDs set), then one of Type
// schemas.EntityDocument for the document itself listing all its chunks.
//
// What goes: the document's chunk hashes and their idx:{t}:chunks
// members, and the document's idx:{t}:docs member (its hash stays, with
// its retraction mark, as the tombstone every later write checks); every
// edge extracted from its chunks (the edge hash, its out:/in:/edges
// memberships, its fact-set member, its applied record), so an edge whose
// fact other documents state too keeps those; its chunks' mentions:
// memberships and the linker's records (linked:, chunklinked:,
// chunklinks:); an alias whose every fact went with the document; rel:
// memberships no remaining edge supports; and a node the document created
// that nothing holds up any more (no edge, mention or linked chunk), with
// its surfaces. Triplets of the document applied later are skipped by
// apply.lua, which checks the same mark.
//
// The report is stored under retract:{t}:<doc id> by the same script, so
// a retraction delivered again changes nothing and returns the same
// updates, which are then published again (at least once).
//
// Reason is r.Reason; DocIDs are the retracted document and, when it was
// superseded, its successor.
func (s *Store) Retract(ctx context.Context, tenant string, r schemas.Retraction) ([]schemas.KGUpdate, error) {
	if err := checkTenant("retract document", tenant); err != nil {
		return nil, err
	}
	if err := schemas.ValidID("doc_id", r.DocID); err != nil {
		return nil, fmt.Errorf("retract document: %w", err)
	}
	docIDs := []string{r.DocID}
	if r.SupersededBy != "" {
		docIDs = append(docIDs, r.SupersededBy)
	}
	ids, err := json.Marshal(docIDs)
	if err != nil {
		return nil, fmt.Errorf("retract document %s: %w", r.DocID, err)
	}
	name := r.Source
	if name == "" {
		name = r.DocID
	}
	t := "{" + tenant + "}:"
	keys := []string{"retract:" + t + r.DocID, "doc:" + t + r.DocID}
	out, err := retractScript.Run(ctx, s.c, keys, prefix(tenant), "chunk:"+t, "idx:"+t+"chunks", "idx:"+t+"docs",
		r.DocID, r.Reason, name, string(ids), aliasRelations).Text()
	if err != nil {
		return nil, fmt.Errorf("retract document %s of tenant %s: %w", r.DocID, tenant, err)
	}
	var ups []schemas.KGUpdate
	if err := json.Unmarshal([]byte(out), &ups); err != nil {
		return nil, fmt.Errorf("retract document %s of tenant %s: read the report: %w", r.DocID, tenant, err)
	}
	return ups, nil
}
