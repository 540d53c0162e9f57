package milvus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/protobuf/proto"
)

// fakeMilvus implements exactly the RPCs the adapter makes, over real gRPC
// on a loopback listener, keeping vectors in memory and answering searches
// by brute force. It checks requests the way Milvus does where the adapter
// could get them wrong (field names and types, dimensions, duplicate keys,
// index before load, load before search), so the adapter's encoding of
// columns and decoding of results is really exercised.
type fakeMilvus struct {
	milvuspb.UnimplementedMilvusServiceServer

	mu    sync.Mutex
	colls map[string]*fakeColl
	calls map[string]int
	// failUpsert, when set, answers every Upsert with this status.
	failUpsert *commonpb.Status
	lastSearch map[string]string
	// lastDelete is the expression of the last Delete.
	lastDelete string
	nextID     int64
	// holdSearch, when set, makes every Search send on it once it has
	// the request and then wait until the client's context ends.
	holdSearch chan struct{}
}

type fakeColl struct {
	id      int64
	schema  *schemapb.CollectionSchema
	dim     int
	index   map[string]string // index params: index_type, metric_type, M, ...
	loaded  bool
	rows    map[string]fakeRow
	created time.Time
}

type fakeRow struct {
	doc string
	vec []float32
}

func ok() *commonpb.Status { return &commonpb.Status{} }

// fail and notFound answer with Status.Code, the field Milvus 2.3 and
// later set and the client reads; the legacy ErrorCode is deprecated.
func fail(code int32, format string, args ...any) *commonpb.Status {
	return &commonpb.Status{Code: code, Reason: fmt.Sprintf(format, args...)}
}

func notFound(name string) *commonpb.Status {
	return &commonpb.Status{Code: 100, Reason: "collection not found[collection=" + name + "]"}
}

// startFake serves a fake Milvus on 127.0.0.1 and returns it with its
// address; the server stops when the test ends.
func startFake(t testing.TB) (*fakeMilvus, string) {
	t.Helper()
	f := &fakeMilvus{colls: map[string]*fakeColl{}, calls: map[string]int{}, nextID: 1000}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
		MinTime: time.Second, PermitWithoutStream: true,
	}))
	milvuspb.RegisterMilvusServiceServer(srv, f)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return f, lis.Addr().String()
}

func (f *fakeMilvus) count(rpc string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[rpc]
}

func (f *fakeMilvus) call(rpc string) {
	f.calls[rpc]++
}

func (f *fakeMilvus) Connect(_ context.Context, req *milvuspb.ConnectRequest) (*milvuspb.ConnectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Connect")
	if req.GetClientInfo().GetSdkType() == "" {
		return &milvuspb.ConnectResponse{Status: fail(1100, "no client info")}, nil
	}
	return &milvuspb.ConnectResponse{Status: ok(), ServerInfo: &commonpb.ServerInfo{BuildTags: "fake"}, Identifier: 7}, nil
}

func (f *fakeMilvus) DescribeCollection(_ context.Context, req *milvuspb.DescribeCollectionRequest) (*milvuspb.DescribeCollectionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("DescribeCollection")
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return &milvuspb.DescribeCollectionResponse{Status: notFound(req.GetCollectionName())}, nil
	}
	return &milvuspb.DescribeCollectionResponse{
		Status: ok(), Schema: c.schema, CollectionID: c.id, CollectionName: req.GetCollectionName(),
		ConsistencyLevel: commonpb.ConsistencyLevel_Bounded, ShardsNum: 1,
		UpdateTimestamp: uint64(c.created.UnixNano()),
	}, nil
}

func (f *fakeMilvus) CreateCollection(_ context.Context, req *milvuspb.CreateCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("CreateCollection")
	name := req.GetCollectionName()
	if _, dup := f.colls[name]; dup {
		return fail(1, "collection %s already exists", name), nil
	}
	var sch schemapb.CollectionSchema
	if err := proto.Unmarshal(req.GetSchema(), &sch); err != nil {
		return fail(1100, "schema: %v", err), nil
	}
	if sch.GetName() != name {
		return fail(1100, "schema name %q for collection %q", sch.GetName(), name), nil
	}
	dim, pks := 0, 0
	for i, fld := range sch.GetFields() {
		fld.FieldID = int64(100 + i)
		if fld.GetIsPrimaryKey() {
			pks++
		}
		if fld.GetDataType() == schemapb.DataType_FloatVector {
			for _, kv := range fld.GetTypeParams() {
				if kv.GetKey() == "dim" {
					dim, _ = strconv.Atoi(kv.GetValue())
				}
			}
		}
	}
	if pks != 1 || dim <= 0 {
		return fail(1100, "schema needs one primary key and a float vector with a dim (pk %d, dim %d)", pks, dim), nil
	}
	f.nextID++
	f.colls[name] = &fakeColl{id: f.nextID, schema: &sch, dim: dim, rows: map[string]fakeRow{}, created: time.Now()}
	return ok(), nil
}

func (f *fakeMilvus) DropCollection(_ context.Context, req *milvuspb.DropCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("DropCollection")
	if _, found := f.colls[req.GetCollectionName()]; !found {
		return notFound(req.GetCollectionName()), nil
	}
	delete(f.colls, req.GetCollectionName())
	return ok(), nil
}

func (f *fakeMilvus) CreateIndex(_ context.Context, req *milvuspb.CreateIndexRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("CreateIndex")
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return notFound(req.GetCollectionName()), nil
	}
	if req.GetFieldName() != "vector" {
		return fail(1100, "index on %q, the vector field is \"vector\"", req.GetFieldName()), nil
	}
	c.index = map[string]string{}
	for _, kv := range req.GetExtraParams() {
		c.index[kv.GetKey()] = kv.GetValue()
	}
	return ok(), nil
}

func (f *fakeMilvus) DescribeIndex(_ context.Context, req *milvuspb.DescribeIndexRequest) (*milvuspb.DescribeIndexResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("DescribeIndex")
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return &milvuspb.DescribeIndexResponse{Status: notFound(req.GetCollectionName())}, nil
	}
	if c.index == nil {
		return &milvuspb.DescribeIndexResponse{Status: fail(700, "index not found")}, nil
	}
	var params []*commonpb.KeyValuePair
	for k, v := range c.index {
		params = append(params, &commonpb.KeyValuePair{Key: k, Value: v})
	}
	return &milvuspb.DescribeIndexResponse{Status: ok(), IndexDescriptions: []*milvuspb.IndexDescription{{
		IndexName: "vector", FieldName: "vector", Params: params, State: commonpb.IndexState_Finished,
		IndexedRows: int64(len(c.rows)), TotalRows: int64(len(c.rows)),
	}}}, nil
}

func (f *fakeMilvus) LoadCollection(_ context.Context, req *milvuspb.LoadCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("LoadCollection")
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return notFound(req.GetCollectionName()), nil
	}
	if c.index == nil {
		return fail(700, "there is no vector index on field: [vector], please create index firstly"), nil
	}
	c.loaded = true
	return ok(), nil
}

func (f *fakeMilvus) GetLoadingProgress(_ context.Context, req *milvuspb.GetLoadingProgressRequest) (*milvuspb.GetLoadingProgressResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("GetLoadingProgress")
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return &milvuspb.GetLoadingProgressResponse{Status: notFound(req.GetCollectionName())}, nil
	}
	progress := int64(0)
	if c.loaded {
		progress = 100
	}
	return &milvuspb.GetLoadingProgressResponse{Status: ok(), Progress: progress}, nil
}

func (f *fakeMilvus) GetLoadState(_ context.Context, req *milvuspb.GetLoadStateRequest) (*milvuspb.GetLoadStateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("GetLoadState")
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return &milvuspb.GetLoadStateResponse{Status: notFound(req.GetCollectionName())}, nil
	}
	state := commonpb.LoadState_LoadStateNotLoad
	if c.loaded {
		state = commonpb.LoadState_LoadStateLoaded
	}
	return &milvuspb.GetLoadStateResponse{Status: ok(), State: state}, nil
}

func (f *fakeMilvus) Upsert(_ context.Context, req *milvuspb.UpsertRequest) (*milvuspb.MutationResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Upsert")
	if f.failUpsert != nil {
		return &milvuspb.MutationResult{Status: f.failUpsert}, nil
	}
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return &milvuspb.MutationResult{Status: notFound(req.GetCollectionName())}, nil
	}
	n := int(req.GetNumRows())
	var ids, docs []string
	var vecs []float32
	for _, fd := range req.GetFieldsData() {
		switch fd.GetFieldName() {
		case "chunk_id":
			ids = fd.GetScalars().GetStringData().GetData()
		case "doc_id":
			docs = fd.GetScalars().GetStringData().GetData()
		case "vector":
			if int(fd.GetVectors().GetDim()) != c.dim {
				return &milvuspb.MutationResult{Status: fail(1100, "vector dim %d, collection %d", fd.GetVectors().GetDim(), c.dim)}, nil
			}
			vecs = fd.GetVectors().GetFloatVector().GetData()
		default:
			return &milvuspb.MutationResult{Status: fail(1100, "unknown field %q", fd.GetFieldName())}, nil
		}
	}
	if n == 0 || len(ids) != n || len(docs) != n || len(vecs) != n*c.dim {
		return &milvuspb.MutationResult{Status: fail(1100, "rows %d: %d ids, %d docs, %d floats", n, len(ids), len(docs), len(vecs))}, nil
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return &milvuspb.MutationResult{Status: fail(1100, "duplicate primary key %q in one upsert", id)}, nil
		}
		seen[id] = true
	}
	for i, id := range ids {
		c.rows[id] = fakeRow{doc: docs[i], vec: slices.Clone(vecs[i*c.dim : (i+1)*c.dim])}
	}
	return &milvuspb.MutationResult{
		Status: ok(), UpsertCnt: int64(n),
		IDs: &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: ids}}},
	}, nil
}

func (f *fakeMilvus) Search(ctx context.Context, req *milvuspb.SearchRequest) (*milvuspb.SearchResults, error) {
	f.mu.Lock()
	hold := f.holdSearch
	f.mu.Unlock()
	if hold != nil {
		hold <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Search")
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return &milvuspb.SearchResults{Status: notFound(req.GetCollectionName())}, nil
	}
	if !c.loaded {
		return &milvuspb.SearchResults{Status: fail(101, "collection not loaded")}, nil
	}
	params := map[string]string{}
	for _, kv := range req.GetSearchParams() {
		params[kv.GetKey()] = kv.GetValue()
	}
	f.lastSearch = params
	if params["anns_field"] != "vector" {
		return &milvuspb.SearchResults{Status: fail(1100, "anns_field %q", params["anns_field"])}, nil
	}
	topk, err := strconv.Atoi(params["topk"])
	if err != nil || topk <= 0 {
		return &milvuspb.SearchResults{Status: fail(1100, "topk %q", params["topk"])}, nil
	}
	var ann map[string]any
	if err := json.Unmarshal([]byte(params["params"]), &ann); err != nil {
		return &milvuspb.SearchResults{Status: fail(1100, "params %q", params["params"])}, nil
	}
	if ef, _ := ann["ef"].(float64); int(ef) < topk {
		return &milvuspb.SearchResults{Status: fail(1100, "ef %v below topk %d", ann["ef"], topk)}, nil
	}
	var phg commonpb.PlaceholderGroup
	if err := proto.Unmarshal(req.GetPlaceholderGroup(), &phg); err != nil || len(phg.GetPlaceholders()) != 1 {
		return &milvuspb.SearchResults{Status: fail(1100, "placeholder group: %v", err)}, nil
	}
	ph := phg.GetPlaceholders()[0]
	if ph.GetType() != commonpb.PlaceholderType_FloatVector || int64(len(ph.GetValues())) != req.GetNq() {
		return &milvuspb.SearchResults{Status: fail(1100, "placeholder type %v with %d values for nq %d", ph.GetType(), len(ph.GetValues()), req.GetNq())}, nil
	}
	res := &schemapb.SearchResultData{NumQueries: req.GetNq(), TopK: int64(topk)}
	var ids []string
	cosine := c.index["metric_type"] == "COSINE"
	for _, raw := range ph.GetValues() {
		if len(raw) != 4*c.dim {
			return &milvuspb.SearchResults{Status: fail(1100, "query of %d bytes, dim %d", len(raw), c.dim)}, nil
		}
		q := make([]float32, c.dim)
		for i := range q {
			q[i] = math.Float32frombits(uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24)
		}
		type scored struct {
			id string
			s  float32
		}
		var all []scored
		for id, r := range c.rows {
			all = append(all, scored{id, similarity(q, r.vec, cosine)})
		}
		sort.Slice(all, func(i, j int) bool {
			if all[i].s != all[j].s {
				return all[i].s > all[j].s
			}
			return all[i].id < all[j].id
		})
		all = all[:min(topk, len(all))]
		for _, a := range all {
			ids = append(ids, a.id)
			res.Scores = append(res.Scores, a.s)
		}
		res.Topks = append(res.Topks, int64(len(all)))
	}
	res.Ids = &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: ids}}}
	return &milvuspb.SearchResults{Status: ok(), Results: res, CollectionName: req.GetCollectionName()}, nil
}

func similarity(a, b []float32, cosine bool) float32 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if !cosine {
		return float32(dot)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

func (f *fakeMilvus) Query(_ context.Context, req *milvuspb.QueryRequest) (*milvuspb.QueryResults, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Query")
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return &milvuspb.QueryResults{Status: notFound(req.GetCollectionName())}, nil
	}
	if !c.loaded {
		return &milvuspb.QueryResults{Status: fail(101, "collection not loaded")}, nil
	}
	if !slices.Equal(req.GetOutputFields(), []string{"count(*)"}) || req.GetExpr() != "" {
		return &milvuspb.QueryResults{Status: fail(1100, "this fake answers count(*) only, got %v where %q", req.GetOutputFields(), req.GetExpr())}, nil
	}
	return &milvuspb.QueryResults{
		Status: ok(), CollectionName: req.GetCollectionName(), OutputFields: []string{"count(*)"},
		FieldsData: []*schemapb.FieldData{{
			Type: schemapb.DataType_Int64, FieldName: "count(*)",
			Field: &schemapb.FieldData_Scalars{Scalars: &schemapb.ScalarField{
				Data: &schemapb.ScalarField_LongData{LongData: &schemapb.LongArray{Data: []int64{int64(len(c.rows))}}},
			}},
		}},
	}, nil
}

// Delete accepts what Milvus accepts for a delete by primary key on this
// schema: exactly "chunk_id in [...]" with double-quoted string literals
// (backslash escapes), and removes the rows it names.
func (f *fakeMilvus) Delete(_ context.Context, req *milvuspb.DeleteRequest) (*milvuspb.MutationResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call("Delete")
	f.lastDelete = req.GetExpr()
	c, found := f.colls[req.GetCollectionName()]
	if !found {
		return &milvuspb.MutationResult{Status: notFound(req.GetCollectionName())}, nil
	}
	ids, err := parseIn("chunk_id", req.GetExpr())
	if err != nil {
		return &milvuspb.MutationResult{Status: fail(1100, "cannot parse expression %q: %v", req.GetExpr(), err)}, nil
	}
	for _, id := range ids {
		delete(c.rows, id)
	}
	return &milvuspb.MutationResult{Status: ok(), DeleteCnt: int64(len(ids)),
		IDs: &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: ids}}}}, nil
}

// parseIn reads `field in ["a","b"]`, the string literals unescaped.
func parseIn(field, expr string) ([]string, error) {
	rest, ok := strings.CutPrefix(expr, field+" in [")
	if !ok {
		return nil, fmt.Errorf("not a %s in [...] expression", field)
	}
	rest, ok = strings.CutSuffix(rest, "]")
	if !ok {
		return nil, errors.New("no closing bracket")
	}
	var ids []string
	for len(rest) > 0 {
		if rest[0] != '"' {
			return nil, fmt.Errorf("literal starts with %q", rest[0])
		}
		var b strings.Builder
		i := 1
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' {
				i++
				if i == len(rest) {
					return nil, errors.New("escape at the end")
				}
			}
			b.WriteByte(rest[i])
		}
		if i == len(rest) {
			return nil, errors.New("unterminated literal")
		}
		ids = append(ids, b.String())
		rest = rest[i+1:]
		if len(rest) > 0 {
			if rest[0] != ',' {
				return nil, fmt.Errorf("want a comma, got %q", rest[0])
			}
			rest = rest[1:]
		}
	}
	return ids, nil
}
