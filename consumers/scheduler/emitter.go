package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Defaults of EmitterConfig.
const (
	DefaultRate  = 50.0
	DefaultTick  = 50 * time.Millisecond
	DefaultLease = 10 * time.Second
	// maxBackoff caps the pause after a failed round (Redis or the broker
	// down): the emitter keeps trying, it never stops the process.
	maxBackoff = 5 * time.Second
)

// Claim is a regeneration an emitter holds: the request to publish (its
// id is the claim's) and when its first change was recorded.
type Claim struct {
	Request schemas.Request
	First   time.Time
}

// Claims is the scheduler's store as the emitter uses it.
type Claims interface {
	// Tenants lists the tenants that may have pending regenerations.
	Tenants(ctx context.Context) ([]string, error)
	// Claim claims up to n regenerations due at now, leased for lease.
	Claim(ctx context.Context, tenant string, now time.Time, lease time.Duration, n int) ([]Claim, error)
	// Ack ends a claim whose request was published.
	Ack(ctx context.Context, tenant string, c Claim) (bool, error)
	// Release gives a claim back to be claimed again at once.
	Release(ctx context.Context, tenant string, c Claim, now time.Time) error
	// Forget takes a tenant with nothing pending off the list.
	Forget(ctx context.Context, tenant string) error
}

// Publish publishes a request and records it as queued (app.App.Request).
// An error wrapping schemas.ErrInvalid, or a permanent one, means the
// request can never be published.
type Publish func(ctx context.Context, tenant string, r schemas.Request) error

// Failures records a request's failure (infra/pages.Store.Finish with a
// nil page), which also frees the page's stale mark.
type Failures interface {
	Finish(ctx context.Context, tenant string, r schemas.Request, page *schemas.Page, failure string) error
}

// EmitterConfig tunes the emitter.
type EmitterConfig struct {
	// Rate is the most requests per second (default DefaultRate), a token
	// bucket holding one second's worth.
	Rate float64
	// Tick is how often due pages are looked for (default DefaultTick).
	Tick time.Duration
	// Lease is how long a claim is held before another emitter may take
	// it again (default DefaultLease).
	Lease time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (c EmitterConfig) withDefaults() EmitterConfig {
	if c.Rate <= 0 {
		c.Rate = DefaultRate
	}
	if c.Tick <= 0 {
		c.Tick = DefaultTick
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// CurrentPages reads the current version of a page of a kind about a
// subject (infra/pages.Store implements it).
type CurrentPages interface {
	CurrentOf(ctx context.Context, tenant, kind, subject string) (schemas.Page, error)
}

// Emitter publishes the regenerations that fall due.
type Emitter struct {
	store   Claims
	publish Publish
	fail    Failures
	cfg     EmitterConfig
	log     zerolog.Logger
	bucket  bucket
	turn    int

	pages   CurrentPages
	missing func(error) bool
}

// NewEmitter returns the emitter. fail may be nil: a request that can
// never be published is then only acknowledged and logged.
func NewEmitter(store Claims, publish Publish, fail Failures, cfg EmitterConfig, log zerolog.Logger) *Emitter {
	cfg = cfg.withDefaults()
	return &Emitter{store: store, publish: publish, fail: fail, cfg: cfg, log: log,
		bucket: newBucket(cfg.Rate, cfg.Now())}
}

// WithPages makes the regeneration of an answer carry the documents its
// current page was written from (schemas.Page.Documents), so that it is
// answered from them again and not from a retrieval. A page that cites
// given documents (schemas.AnswerDocRef) but records none cannot be
// regenerated from them: its regeneration is refused, with the reason,
// rather than answered otherwise. missing tells the error src gives for
// a page that does not exist (the request then goes as it is) from a
// fault (the claim is given back and tried again). It returns e.
func (e *Emitter) WithPages(src CurrentPages, missing func(error) bool) *Emitter {
	e.pages, e.missing = src, missing
	return e
}

// carry returns r with the documents its page was written from, for an
// answer without documents; an error wrapping schemas.ErrInvalid when
// the page cites given documents it does not record.
func (e *Emitter) carry(ctx context.Context, tenant string, r schemas.Request) (schemas.Request, error) {
	if e.pages == nil || r.Kind != schemas.KindAnswer || len(r.Documents) > 0 {
		return r, nil
	}
	p, err := e.pages.CurrentOf(ctx, tenant, r.Kind, r.Subject)
	if err != nil {
		if e.missing != nil && e.missing(err) {
			return r, nil
		}
		return r, fmt.Errorf("read the page the regeneration of %q is for: %w", r.Subject, err)
	}
	if len(p.Documents) > 0 {
		r.Documents = slices.Clone(p.Documents)
		return r, nil
	}
	for _, st := range p.Sentences {
		for _, c := range st.Citations {
			if _, ok := schemas.ParseAnswerDocRef(c.ChunkID); ok {
				return r, fmt.Errorf("%w: answer %q (version %d) was written from given documents its page does not record; "+
					"asked again without them it would be answered from a retrieval", schemas.ErrInvalid, r.Subject, p.Version)
			}
		}
	}
	return r, nil
}

// Run emits until ctx ends, then returns nil. A failed round (Redis or the
// broker unreachable) is logged and tried again after a pause that grows
// to a few seconds: what is claimed and not published is released or
// expires, so nothing is lost while a dependency is down.
func (e *Emitter) Run(ctx context.Context) error {
	t := time.NewTicker(e.cfg.Tick)
	defer t.Stop()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		_, err := e.Round(ctx)
		if err == nil || ctx.Err() != nil {
			failures = 0
			continue
		}
		failures++
		pause := min(e.cfg.Tick<<min(failures, 10), maxBackoff)
		e.log.Warn().Err(err).Dur("retry_in", pause).Msg("scheduler: emitting regenerations failed")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
	}
}

// Round claims what is due in every tenant, as far as the rate allows,
// publishes and acknowledges it, and returns how many requests it
// published. Tenants take turns at going first, so one tenant's backlog
// does not starve the others.
func (e *Emitter) Round(ctx context.Context) (int, error) {
	now := e.cfg.Now()
	e.bucket.refill(now)
	tenants, err := e.store.Tenants(ctx)
	if err != nil || len(tenants) == 0 {
		return 0, err
	}
	e.turn++
	sent := 0
	for i := range tenants {
		tenant := tenants[(i+e.turn)%len(tenants)]
		n := e.bucket.available()
		if n == 0 {
			break
		}
		claims, err := e.store.Claim(ctx, tenant, now, e.cfg.Lease, n)
		if err != nil {
			return sent, err
		}
		if len(claims) == 0 {
			if err := e.store.Forget(ctx, tenant); err != nil {
				return sent, err
			}
			continue
		}
		for j, c := range claims {
			e.bucket.take()
			if err := e.emit(ctx, tenant, c); err != nil {
				// The claims not tried yet are given back too, so they are
				// not held for a whole lease.
				for _, rest := range claims[j+1:] {
					err = errors.Join(err, e.store.Release(ctx, tenant, rest, now))
				}
				return sent, err
			}
			sent++
		}
	}
	return sent, nil
}

// emit publishes one claim's request (carrying its page's documents,
// see WithPages) and acknowledges the claim.
func (e *Emitter) emit(ctx context.Context, tenant string, c Claim) error {
	r, err := e.carry(ctx, tenant, c.Request)
	if err == nil {
		err = e.publish(ctx, tenant, r)
	}
	if err != nil && !errors.Is(err, schemas.ErrInvalid) && !pipeline.IsPermanent(err) {
		return errors.Join(fmt.Errorf("publish the regeneration of %q: %w", c.Request.Subject, err),
			e.store.Release(ctx, tenant, c, e.cfg.Now()))
	}
	if err != nil {
		e.log.Error().Err(err).Str("tenant", tenant).Str("kind", c.Request.Kind).Str("subject", c.Request.Subject).
			Msg("scheduler: regeneration refused")
		if e.fail != nil {
			if ferr := e.fail.Finish(ctx, tenant, c.Request, nil, "regeneration refused: "+err.Error()); ferr != nil {
				return ferr
			}
		}
	}
	if _, err := e.store.Ack(ctx, tenant, c); err != nil {
		return err
	}
	ev := e.log.Debug().Str("tenant", tenant).Str("kind", c.Request.Kind).Str("subject", c.Request.Subject).
		Str("request_id", c.Request.RequestID).Dur("lag", e.cfg.Now().Sub(c.First))
	if c.Request.Trigger != nil {
		ev = ev.Str("reason", c.Request.Trigger.Reason)
	}
	ev.Msg("scheduler: regeneration requested")
	return nil
}

// bucket is a token bucket: rate tokens a second, holding at most one
// second's worth (at least one).
type bucket struct {
	rate, tokens, burst float64
	last                time.Time
}

func newBucket(rate float64, now time.Time) bucket {
	burst := math.Max(1, rate)
	return bucket{rate: rate, tokens: burst, burst: burst, last: now}
}

func (b *bucket) refill(now time.Time) {
	if d := now.Sub(b.last); d > 0 {
		b.tokens = math.Min(b.burst, b.tokens+d.Seconds()*b.rate)
		b.last = now
	}
}

func (b *bucket) available() int { return int(b.tokens) }

func (b *bucket) take() { b.tokens-- }
