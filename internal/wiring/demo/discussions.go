package demo

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"

	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// discussionsJSONL holds the demo's news discussions, one KGDS-shaped
// object a line ({"id", "SBK", "KGD"}): short stories written for the
// project (a football club's coach sacked, a town library closed, a solar
// farm opposed by farmers), each with turns whose pronouns and role words
// ("the coach", "the club", "the mayor") the summary resolves.
//
//go:embed data/discussions.jsonl
var discussionsJSONL []byte

// Discussions returns the demo's discussions in file order, read and
// checked as every entry point reads them (producers.ReadDiscussions), so
// a broken fixture fails here and not as a dead letter.
func Discussions() ([]schemas.Discussion, error) {
	ds, err := producers.ReadDiscussions(bytes.NewReader(discussionsJSONL))
	if err != nil {
		return nil, fmt.Errorf("demo discussions: %w", err)
	}
	return ds, nil
}

// SendDiscussions publishes the demo's discussions for tenant on the
// discussions topic through sink (the App, whose producer also publishes
// the demo's documents), each under producers.DiscussionEventID, so a
// demo started again on the same data directory publishes the same events
// and the stages skip them. It writes to w how many it sent. The
// discussions stage stores them and asks for their summaries; the feed
// stage publishes each summary (GET /v1/feed, the UI's Discussions view).
func SendDiscussions(ctx context.Context, sink producers.DiscussionSink, tenant string, w io.Writer) (int, error) {
	ds, err := Discussions()
	if err != nil {
		return 0, err
	}
	ids, err := producers.PublishDiscussions(ctx, sink, tenant, ds)
	if err != nil {
		return 0, fmt.Errorf("send demo discussions: %w", err)
	}
	fmt.Fprintf(w, "annalist demo: sent %d discussions to summarise (topic %s); their summaries arrive in the feed (/v1/feed, the Discussions view)\n",
		len(ids), topology.Discussions)
	return len(ids), nil
}
