package producers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/annalist-dev/annalist/schemas"
)

// Extensions read by the file source.
var extensions = map[string]bool{".txt": true, ".md": true, ".jsonl": true}

// Options shape documents made from files.
type Options struct {
	// Collection names the documents' collection; empty means the base name
	// of the directory argument (or of the file's folder).
	Collection string
	// Profile forces a chunker profile; empty lets the chunker detect it.
	Profile string
}

// File is one file to ingest.
type File struct {
	Path string
	// Rel is the path shown as the document's source: relative to the
	// argument it was found under, prefixed with the argument's base name.
	Rel        string
	Collection string
	Size       int64
}

// Walk expands paths (files and directories, recursively) into the files
// with a known extension, sorted, each once. A path that does not exist is
// an error; files with other extensions inside directories are skipped.
func Walk(paths []string, opts Options) ([]File, error) {
	var out []File
	seen := map[string]bool{}
	add := func(path, rel, coll string, size int64) {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		if seen[abs] {
			return
		}
		seen[abs] = true
		if opts.Collection != "" {
			coll = opts.Collection
		}
		out = append(out, File{Path: path, Rel: filepath.ToSlash(rel), Collection: coll, Size: size})
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("ingest %s: %w", p, err)
		}
		if !st.IsDir() {
			if !extensions[strings.ToLower(filepath.Ext(p))] {
				return nil, fmt.Errorf("%w: %s: unsupported extension (want .txt, .md or .jsonl)", ErrInput, p)
			}
			add(p, filepath.Base(p), filepath.Base(filepath.Dir(mustAbs(p))), st.Size())
			continue
		}
		root := filepath.Base(mustAbs(p))
		var found []File
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !extensions[strings.ToLower(filepath.Ext(path))] {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(p, path)
			if err != nil {
				return err
			}
			found = append(found, File{Path: path, Rel: filepath.Join(root, rel), Collection: root, Size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk %s: %w", p, err)
		}
		sort.Slice(found, func(i, j int) bool { return found[i].Rel < found[j].Rel })
		for _, f := range found {
			add(f.Path, f.Rel, f.Collection, f.Size)
		}
	}
	return out, nil
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// Read turns one file into items: one for .txt and .md, one per line for
// .jsonl. Bad JSONL lines are reported in errs with their line numbers and
// do not stop the rest of the file.
func Read(f File, opts Options) (items []Item, errs []error) {
	if strings.EqualFold(filepath.Ext(f.Path), ".jsonl") {
		fh, err := os.Open(f.Path)
		if err != nil {
			return nil, []error{fmt.Errorf("read %s: %w", f.Rel, err)}
		}
		defer fh.Close()
		return ReadJSONL(fh, f.Rel, JSONLDefaults{Collection: f.Collection, Profile: opts.Profile})
	}
	if f.Size > MaxDocumentBytes {
		return nil, []error{fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrInput, f.Rel, f.Size, MaxDocumentBytes)}
	}
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return nil, []error{fmt.Errorf("read %s: %w", f.Rel, err)}
	}
	text := string(data)
	doc := schemas.Document{
		Source:     f.Rel,
		Title:      titleOf(f.Path, text),
		Collection: f.Collection,
		Profile:    opts.Profile,
		Text:       text,
	}
	it, err := NewItem(doc)
	if err != nil {
		return nil, []error{err}
	}
	return []Item{it}, nil
}

// titleOf is a Markdown file's first heading, else the file's base name.
func titleOf(path, text string) string {
	if strings.EqualFold(filepath.Ext(path), ".md") {
		for _, line := range strings.SplitN(text, "\n", 50) {
			if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
				return strings.TrimSpace(t)
			}
		}
	}
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// JSONLRecord is one line of JSON Lines input. Only text is required.
type JSONLRecord struct {
	DocID      string            `json:"doc_id"`
	Source     string            `json:"source"`
	Title      string            `json:"title"`
	Collection string            `json:"collection"`
	Profile    string            `json:"profile"`
	Lang       string            `json:"lang"`
	Text       string            `json:"text"`
	Metadata   map[string]string `json:"metadata"`
}

// JSONLDefaults fill fields a record leaves empty.
type JSONLDefaults struct {
	Collection string
	Profile    string
}

// Document converts the record, filling defaults; source falls back to
// "<name>:<line>" and the id then to one derived from name and text.
func (r JSONLRecord) Document(name string, line int, def JSONLDefaults) schemas.Document {
	d := schemas.Document{DocID: r.DocID, Source: r.Source, Title: r.Title, Collection: r.Collection,
		Profile: r.Profile, Lang: r.Lang, Text: r.Text, Metadata: r.Metadata}
	if d.Source == "" {
		// Position is shown to people but kept out of the id: the same text
		// sent twice is one document wherever it sits in the stream.
		d.Source = fmt.Sprintf("%s:%d", name, line)
		if d.DocID == "" {
			d.DocID = DocID(name, d.Text)
		}
	}
	if d.Collection == "" {
		d.Collection = def.Collection
	}
	if d.Profile == "" {
		d.Profile = def.Profile
	}
	return d
}

// ReadJSONL reads JSON Lines from r: one document per non-blank line.
// Malformed lines are returned as errors naming the line; reading goes on.
func ReadJSONL(r io.Reader, name string, def JSONLDefaults) (items []Item, errs []error) {
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		raw, tooLong, err := readLine(br)
		switch {
		case tooLong:
			errs = append(errs, fmt.Errorf("%w: %s:%d: line longer than %d bytes", ErrInput, name, line, maxLineBytes))
		case strings.TrimSpace(string(raw)) != "":
			it, perr := parseJSONLLine(raw, name, line, def)
			if perr != nil {
				errs = append(errs, perr)
			} else {
				items = append(items, it)
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				errs = append(errs, fmt.Errorf("read %s: %w", name, err))
			}
			return items, errs
		}
	}
}

// maxLineBytes bounds one JSONL line: a maximal document plus its JSON
// escaping and fields.
const maxLineBytes = 2*MaxDocumentBytes + 64<<10

// readLine reads one line of any length; a line over maxLineBytes is
// consumed whole and reported as too long rather than cut.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		part, isPrefix, err := br.ReadLine()
		if !tooLong {
			if len(line)+len(part) > maxLineBytes {
				tooLong, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if err != nil || !isPrefix {
			return line, tooLong, err
		}
	}
}

func parseJSONLLine(raw []byte, name string, line int, def JSONLDefaults) (Item, error) {
	if err := checkJSONText(fmt.Sprintf("%s:%d", name, line), raw); err != nil {
		return Item{}, err
	}
	var rec JSONLRecord
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return Item{}, fmt.Errorf("%w: %s:%d: %w", ErrInput, name, line, err)
	}
	if dec.More() {
		return Item{}, fmt.Errorf("%w: %s:%d: more than one JSON value on the line", ErrInput, name, line)
	}
	it, err := NewItem(rec.Document(name, line, def))
	if err != nil {
		return Item{}, fmt.Errorf("%s:%d: %w", name, line, err)
	}
	if rec.Source == "" {
		// The source filled from the position is shown to people, never
		// a version key: line 1 of one request is not a new version of
		// line 1 of another.
		it.Key = it.Doc.DocID
	}
	return it, nil
}
