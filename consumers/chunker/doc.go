// Package chunker is the chunker stage: it reads each document, splits it
// into chunks that tile it — concatenated, the chunks give the document
// text back exactly; offsets are runes — stores them and publishes them
// on the chunks topic (Handler). The language's rules for finding entries
// in biography volumes are internal/lang/zh/segment's; the stage picks
// the profile, asks those rules or the model where entries start, cuts
// the pieces to size and writes the chunks.
//
// It implements the training-free pattern-enhanced chunking of the
// Alstorian paper (§2.2.1): a corpus profile supplies the entry
// pattern and a few hand-made demonstrations.
//
// # Profiles
//
// A document names its profile (schemas.Document.Profile) or the chunker
// detects it (Detect) from the evidence of entry openings
// (segment.Rules.EntryOpenings): lines that open with a name and a
// person's formula (字, 号, a clan, 世居, a banner, a native place, a
// kinship clause, "Name者，"), at least one per 20,000 characters.
// Profiles are data (internal/lang/profile): each says how its documents
// are chunked and holds the entry patterns and demonstrations; the
// embedded ones are:
//
//   - liezhuan: volumes of biographies in the manner of the History of
//     Ming and the Draft History of Qing, and the scholars' records (学案),
//     read by the classical-Chinese rules of internal/lang/zh/segment,
//     which say where each person's entry starts and who it is about.
//     One entry chunk per person, Subject set to the person; a long entry
//     is split at paragraph, then sentence ends into continuation chunks
//     (empty Subject, Entry and EntryChunk set). A chunk never spans two
//     people as far as the text shows. When a listing names the volume's
//     people, the main entry chunks spell it.
//
//     A person whose own entry opens inside another's (a relative, an
//     attached person, someone the listing names in parentheses) is an
//     attached person: the chunk has Attached set, Subject and SubEntry
//     the person, and Main the person whose entry it opens in; the chunks
//     cut from the rest of that person's text have SubEntry and Main set
//     too. Entry and EntryChunk stay the main person's: the knowledge
//     graph anchors the people an entry introduces to the entry, so a
//     relative's own facts and the main text's edge naming him meet on
//     one person. So their facts are theirs, never the main person's, and
//     the main person's reference set leaves their text out unless it
//     names him. Text before the first entry, heading lines and the
//     closing appraisal (赞曰) form chunks that belong to no entry;
//     Chunk.Listed records the listing's parenthesised groups.
//
//   - generic: sentence-aware windows for everything else: Chinese (。！？)
//     and English (. ! ?) sentence ends and paragraph breaks, about
//     Config.TargetChars long, never cut inside a sentence unless the
//     sentence alone exceeds Config.HardMaxChars.
//
//   - english: the same windows for English prose a document says is
//     English; the later stages read it with English rules whatever
//     characters it quotes.
//
//   - glossary: "term｜category｜definition" lines (internal/lang/zh/glossary),
//     one chunk per entry; chosen for documents of the glossary collection
//     or whose lines are such entries (glossary.go).
//
// # Engines
//
// The offline engine (segment.Rules.Marks) is deterministic and needs no
// network. With WithModel, liezhuan documents are split by the model
// instead: the prompt (prompts/liezhuan.v1.tmpl, with the profile's
// demonstrations, internal/lang/profile's chunk_demos.json) states the
// pattern, the model answers the entry starts as JSON anchors, the answer
// is validated (boundaries on sentence starts of the text, in order, so
// the pieces tile it), a rejected answer is asked again with the reason,
// and a document whose answers stay invalid falls back to the offline
// engine, with the reason in Result.Fallback, a warning in the log and
// Stats.LLMFallbacks counted.
// Either way the rules name the people of the entry starts
// (segment.Rules.Read). Generic documents never use the model: sentence
// windows gain nothing from it.
//
// Chunk ids are <doc id>-<seq, 4 digits>: deterministic from the document
// id and the chunk's position.
package chunker
