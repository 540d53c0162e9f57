package writer

import "github.com/annalist-dev/annalist/internal/ports/kind"

// Drafter writes a page one sentence at a time. It is the kind port's
// drafter (kind.Drafter): the writer's engines (Offline, LLM) implement it
// and a kind registers them per engine.
type Drafter = kind.Drafter
