package hnsw

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// ErrCorrupt reports a snapshot or log that cannot be read back whole.
var ErrCorrupt = errors.New("vector index file is corrupt")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	snapMagic   = "ANNHNSW1"
	snapVersion = 1
)

// Log record operations.
const (
	opUpsert byte = 1
	opDelete byte = 2
)

// encoder writes little-endian fields and keeps a running CRC of them.
type encoder struct {
	w   *bufio.Writer
	crc hash.Hash32
	buf []byte
	err error
}

func newEncoder(w io.Writer) *encoder {
	return &encoder{w: bufio.NewWriterSize(w, 1<<20), crc: crc32.New(castagnoli)}
}

func (e *encoder) flushBuf() {
	if e.err != nil {
		e.buf = e.buf[:0]
		return
	}
	e.crc.Write(e.buf)
	_, e.err = e.w.Write(e.buf)
	e.buf = e.buf[:0]
}

func (e *encoder) u8(v uint8) { e.buf = append(e.buf, v) }
func (e *encoder) u32(v uint32) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, v)
}
func (e *encoder) u64(v uint64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, v)
}
func (e *encoder) str(s string) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
}
func (e *encoder) bytes(b []byte) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(b)))
	e.buf = append(e.buf, b...)
}
func (e *encoder) f32s(v []float32) {
	for _, x := range v {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(x))
	}
}
func (e *encoder) u32s(v []uint32) {
	for _, x := range v {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, x)
	}
}

// decoder reads what encoder wrote, refusing lengths larger than what is
// left of the input, so a corrupt length cannot trigger a huge allocation.
type decoder struct {
	r    *bufio.Reader
	crc  hash.Hash32
	left int64
	err  error
	tmp  [8]byte
}

func newDecoder(r io.Reader, size int64) *decoder {
	return &decoder{r: bufio.NewReaderSize(r, 1<<20), crc: crc32.New(castagnoli), left: size}
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) read(p []byte) bool {
	if d.err != nil {
		return false
	}
	if int64(len(p)) > d.left {
		d.fail("truncated: need %d bytes, %d left", len(p), d.left)
		return false
	}
	if _, err := io.ReadFull(d.r, p); err != nil {
		d.fail("read: %v", err)
		return false
	}
	d.left -= int64(len(p))
	d.crc.Write(p)
	return true
}

func (d *decoder) u8() uint8 {
	if !d.read(d.tmp[:1]) {
		return 0
	}
	return d.tmp[0]
}

func (d *decoder) u32() uint32 {
	if !d.read(d.tmp[:4]) {
		return 0
	}
	return binary.LittleEndian.Uint32(d.tmp[:4])
}

func (d *decoder) u64() uint64 {
	if !d.read(d.tmp[:8]) {
		return 0
	}
	return binary.LittleEndian.Uint64(d.tmp[:8])
}

func (d *decoder) uvarint() uint64 {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b := d.u8()
		if d.err != nil {
			return 0
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x
		}
	}
	d.fail("varint overflows")
	return 0
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(d.left) {
		d.fail("length %d exceeds the %d bytes left", n, d.left)
		return nil
	}
	b := make([]byte, n)
	d.read(b)
	return b
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) f32s(dst []float32) {
	var b [4]byte
	for i := range dst {
		if !d.read(b[:]) {
			return
		}
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[:]))
	}
}

func (d *decoder) u32s(dst []uint32) {
	var b [4]byte
	for i := range dst {
		if !d.read(b[:]) {
			return
		}
		dst[i] = binary.LittleEndian.Uint32(b[:])
	}
}

// writeSnapshot writes the whole graph, with lsn, the position in the log
// it reflects. The caller holds at least the read lock.
func (ix *Index) writeSnapshot(w io.Writer, lsn uint64) error {
	e := newEncoder(w)
	e.buf = append(e.buf, snapMagic...)
	e.u32(snapVersion)
	e.u32(uint32(ix.dim))
	e.u32(uint32(ix.p.M))
	e.u32(uint32(ix.p.EfConstruction))
	e.u64(ix.p.Seed)
	e.u64(lsn)
	rng, err := ix.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("write snapshot: level generator: %w", err)
	}
	e.bytes(rng)
	e.u32(uint32(len(ix.ids)))
	e.u32(uint32(ix.entry))
	e.u32(uint32(ix.top))
	var on uint8
	if ix.graphOn {
		on = 1
	}
	e.u8(on)
	e.flushBuf()
	for n := range uint32(len(ix.ids)) {
		e.str(ix.ids[n])
		e.str(ix.docs[n])
		var flags uint8
		if ix.dead[n] {
			flags = 1
		}
		e.u8(flags)
		e.u8(ix.levels[n])
		e.f32s(ix.vector(n))
		for lc := 0; lc <= int(ix.levels[n]); lc++ {
			block := ix.links(n, lc)
			e.u32s(block[:1+block[0]])
		}
		e.flushBuf()
	}
	if e.err != nil {
		return fmt.Errorf("write snapshot: %w", e.err)
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], e.crc.Sum32())
	if _, err := e.w.Write(sum[:]); err != nil {
		return fmt.Errorf("write snapshot: %w", err)
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("write snapshot: %w", err)
	}
	return nil
}

// readSnapshot reads a graph written by writeSnapshot. p supplies the
// search-time parameters; M, EfConstruction and the seed come from the file
// because the graph was built with them.
func readSnapshot(r io.Reader, size int64, p Params) (*Index, uint64, error) {
	d := newDecoder(r, size-4)
	magic := make([]byte, len(snapMagic))
	d.read(magic)
	if d.err == nil && string(magic) != snapMagic {
		return nil, 0, fmt.Errorf("%w: not a snapshot (magic %q)", ErrCorrupt, magic)
	}
	if v := d.u32(); d.err == nil && v != snapVersion {
		return nil, 0, fmt.Errorf("%w: snapshot version %d, this build reads %d", ErrCorrupt, v, snapVersion)
	}
	dim := int(d.u32())
	p.M = int(d.u32())
	p.EfConstruction = int(d.u32())
	p.Seed = d.u64()
	lsn := d.u64()
	rng := d.bytes()
	n := int(d.u32())
	entry := int32(d.u32())
	top := int(d.u32())
	graphOn := d.u8() == 1
	if d.err != nil {
		return nil, 0, d.err
	}
	if p.M < 2 || p.M > 255 || top >= maxLevels || int64(n)*int64(dim)*4 > size || entry < -1 || int(entry) >= max(n, 1) {
		return nil, 0, fmt.Errorf("%w: implausible header (dim %d, M %d, nodes %d, entry %d, top %d)",
			ErrCorrupt, dim, p.M, n, entry, top)
	}
	ix, err := NewIndex(dim, p)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err := ix.pcg.UnmarshalBinary(rng); err != nil {
		return nil, 0, fmt.Errorf("%w: level generator: %w", ErrCorrupt, err)
	}
	ix.rnd = rand.New(ix.pcg)
	ix.vecs = make([]float32, 0, n*dim)
	ix.links0 = make([]uint32, 0, n*(ix.m0+1))
	vec := make([]float32, dim)
	for i := range n {
		id, doc := d.str(), d.str()
		flags, level := d.u8(), int(d.u8())
		if d.err != nil {
			return nil, 0, d.err
		}
		if level >= maxLevels {
			return nil, 0, fmt.Errorf("%w: node %d has level %d", ErrCorrupt, i, level)
		}
		d.f32s(vec)
		node := ix.appendNode(id, doc, vec, level)
		for lc := 0; lc <= level; lc++ {
			block := ix.links(node, lc)
			cnt := d.u32()
			if d.err == nil && int(cnt) > ix.maxLinks(lc) {
				return nil, 0, fmt.Errorf("%w: node %d has %d links on layer %d", ErrCorrupt, i, cnt, lc)
			}
			block[0] = cnt
			d.u32s(block[1 : 1+cnt])
		}
		if d.err != nil {
			return nil, 0, d.err
		}
		if flags&1 != 0 {
			ix.dead[node] = true
			continue
		}
		if _, dup := ix.byID[id]; dup {
			return nil, 0, fmt.Errorf("%w: id %q is live twice", ErrCorrupt, id)
		}
		ix.byID[id] = node
		ix.live++
	}
	if d.left != 0 {
		return nil, 0, fmt.Errorf("%w: %d unexpected bytes after the last node", ErrCorrupt, d.left)
	}
	got := d.crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(d.r, sum[:]); err != nil {
		return nil, 0, fmt.Errorf("%w: checksum: %v", ErrCorrupt, err)
	}
	if want := binary.LittleEndian.Uint32(sum[:]); got != want {
		return nil, 0, fmt.Errorf("%w: checksum %08x, file says %08x", ErrCorrupt, got, want)
	}
	for node := range uint32(n) {
		for lc := 0; lc <= int(ix.levels[node]); lc++ {
			for _, nb := range neighbours(ix.links(node, lc)) {
				if int(nb) >= n || int(ix.levels[nb]) < lc {
					return nil, 0, fmt.Errorf("%w: node %d links to %d on layer %d", ErrCorrupt, node, nb, lc)
				}
			}
		}
	}
	ix.entry, ix.top, ix.graphOn = entry, top, graphOn
	return ix, lsn, nil
}

// record is one log entry.
type record struct {
	op  byte
	lsn uint64
	id  string
	doc string
	vec []float32
}

// appendRecord frames r as [length u32][crc32c u32][payload] onto buf.
func appendRecord(buf []byte, r record) []byte {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)
	buf = append(buf, r.op)
	buf = binary.LittleEndian.AppendUint64(buf, r.lsn)
	buf = binary.AppendUvarint(buf, uint64(len(r.id)))
	buf = append(buf, r.id...)
	if r.op == opUpsert {
		buf = binary.AppendUvarint(buf, uint64(len(r.doc)))
		buf = append(buf, r.doc...)
		buf = binary.AppendUvarint(buf, uint64(len(r.vec)))
		for _, x := range r.vec {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	payload := buf[start+8:]
	binary.LittleEndian.PutUint32(buf[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[start+4:], crc32.Checksum(payload, castagnoli))
	return buf
}

func parseRecord(p []byte) (record, error) {
	var r record
	if len(p) < 9 {
		return r, fmt.Errorf("%w: log record of %d bytes", ErrCorrupt, len(p))
	}
	r.op = p[0]
	r.lsn = binary.LittleEndian.Uint64(p[1:9])
	p = p[9:]
	str := func() (string, bool) {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return "", false
		}
		s := string(p[k : k+int(n)])
		p = p[k+int(n):]
		return s, true
	}
	var ok bool
	if r.id, ok = str(); !ok {
		return r, fmt.Errorf("%w: log record id", ErrCorrupt)
	}
	switch r.op {
	case opDelete:
	case opUpsert:
		if r.doc, ok = str(); !ok {
			return r, fmt.Errorf("%w: log record doc", ErrCorrupt)
		}
		n, k := binary.Uvarint(p)
		if k <= 0 || n*4 != uint64(len(p)-k) {
			return r, fmt.Errorf("%w: log record vector", ErrCorrupt)
		}
		p = p[k:]
		r.vec = make([]float32, n)
		for i := range r.vec {
			r.vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
		}
	default:
		return r, fmt.Errorf("%w: log record op %d", ErrCorrupt, r.op)
	}
	return r, nil
}

// readLog returns the complete records of a log and the size of the prefix
// they occupy. A torn or corrupt record ends the log: everything from it on
// is what a crash left half-written, and the caller truncates it away.
func readLog(f *os.File) ([]record, int64, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := st.Size()
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<20)
	var out []record
	var good int64
	var hdr [8]byte
	for good+8 <= size {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return nil, 0, err
		}
		n := int64(binary.LittleEndian.Uint32(hdr[:4]))
		if good+8+n > size {
			break
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(r, p); err != nil {
			return nil, 0, err
		}
		if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(hdr[4:]) {
			break
		}
		rec, err := parseRecord(p)
		if err != nil {
			break
		}
		out = append(out, rec)
		good += 8 + n
	}
	return out, good, nil
}

// writeFileAtomic writes path through a temporary file in the same
// directory: write, fsync, rename over path, fsync the directory. A crash
// leaves either the old file or the new one, never a mix.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
