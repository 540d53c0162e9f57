package kafka_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
)

func TestPing(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := kafka.Ping(ctx, e.cfg); err != nil {
		t.Fatalf("ping a running broker: %v", err)
	}
	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	short, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	if err := kafka.Ping(short, kafka.Config{Brokers: []string{addr}}); err == nil {
		t.Fatal("ping of a closed port succeeded")
	}
}
