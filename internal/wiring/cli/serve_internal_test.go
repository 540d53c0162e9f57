package cli

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/producers"
)

// TestServerTimeouts: serve's server bounds the time a client takes to
// send its headers and its body, and closes idle connections; it sets no
// write timeout, which would cut event streams.
func TestServerTimeouts(t *testing.T) {
	srv := newServer(context.Background(), http.NotFoundHandler())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Fatalf("timeouts: header %v, request %v, idle %v; want all set",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout)
	}
	if srv.WriteTimeout != 0 {
		t.Fatalf("WriteTimeout %v would cut event streams", srv.WriteTimeout)
	}
}

// TestSlowBodyIsCut: a client that stops sending its body is answered
// and disconnected once the read timeout passes, instead of holding its
// connection.
func TestSlowBodyIsCut(t *testing.T) {
	srv := newServer(context.Background(), api.New(api.Deps{Sink: nopSink{}}))
	srv.ReadTimeout = 300 * time.Millisecond
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = c.Write([]byte("POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"text\":\"a"))
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	if !strings.Contains(line, " 400 ") || time.Since(start) > 3*time.Second {
		t.Fatalf("stalled body: %q after %v; want a 400 after the read timeout", line, time.Since(start))
	}
}

type nopSink struct{}

func (nopSink) Send(context.Context, string, []producers.Item) error { return nil }
