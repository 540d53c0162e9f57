package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// helpEntry is one form of a command in the command reference: the
// registered command it belongs to (a key of commands()), the usage line
// as a user types it after `annalist`, and what it does. A description is
// Markdown: paragraphs separated by a blank line, list items as lines that
// begin with "- ".
type helpEntry struct {
	command     string
	usage       string
	description string
}

// commandsDocFile is where the Markdown reference is kept, relative to the
// repository root; a test keeps it equal to `annalist help --markdown`.
const commandsDocFile = "docs/commands.md"

// regenerateCommandsDoc is the command that writes commandsDocFile again.
const regenerateCommandsDoc = "go run . help --markdown > " + commandsDocFile

// helpIntro opens the Markdown reference.
const helpIntro = "Every command takes `--data-dir DIR` (default `./data`) and `--tenant` (default `default`). " +
	"Flags may come before or after positional arguments. " +
	"Long commands show a progress bar on a terminal and log lines otherwise; " +
	"with `--json` they print exactly one JSON value on stdout (logs go to stderr). " +
	"`annalist help` lists the commands, `annalist help COMMAND` shows one, `annalist CMD -h` their flags. " +
	"Every flag can also be set by an environment variable ([Configuration](configuration.md)).\n\n" +
	"The evaluation data lives outside the repository (`../shared/data`, or `$ANNALIST_DATA`); " +
	"commands and tests read it from there and tests skip cleanly when it is absent. " +
	"The HTTP API that `serve` and `demo` answer is described in [HTTP API](api.md)."

// helpReference is the command reference, in the order it is printed.
// Every registered command has at least one entry (a test checks it).
var helpReference = []helpEntry{
	{"demo", "demo [--addr H:P] [--once]",
		"Starts everything embedded and ingests the demo corpus (`internal/wiring/demo/corpus`: our own classical-Chinese and English texts, plus the shipped glossary). " +
			"It prints every person the KG learned with aliases and facts, each fact with its chunk, " +
			"then writes a verified biography of everyone with an entry of their own and prints it with numbered citations and the cited chunks; " +
			"then it serves the HTTP API until Ctrl-C."},

	{"ingest", "ingest PATH... [--collection C] [--profile P]",
		"Files and directories (`.txt`, `.md`, `.jsonl`), or `-` for JSON Lines on stdin. " +
			"Waits until the pipeline is idle and prints what the store holds.\n\n" +
			"A document is a version of its **source** (a file's path under the directory given, prefixed with that directory's name, " +
			"e.g. `archive/mingru-xuean/卷一.txt`; a JSONL line's `source`):\n\n" +
			"- the same text again publishes nothing, so ingesting the same files again changes nothing and regenerates no page;\n" +
			"- a changed file is a new version that supersedes the old one (its chunks, mentions, facts and vectors are retracted, and the pages resting on them follow).\n\n" +
			"Inputs are checked as over HTTP ([HTTP API](api.md#input-rules)): a refused one is logged and skipped. " +
			"An unknown `--profile` exits 2 with the list of profiles before anything starts. " +
			"When nothing was ingested because every input was refused (or there was none) it exits 1 with a one-line reason on stderr " +
			"(with `--json`, the summary is still printed on stdout); " +
			"it exits 0 when anything was ingested, documents already in the store included."},
	{"ingest", "ingest discussions FILE|- [--wait=false] [--json]",
		"The input of `summarize discussion` through the stream: each discussion goes on the `discussions` topic; " +
			"the `discussions` stage stores it, ingests its paragraphs as documents of the collection `discussion:<id>` and asks for its summary, " +
			"which is written, verified and published on the `feed` topic.\n\n" +
			"Bad input exits 1 naming the file and record before anything starts. " +
			"With `--wait` (the default) it prints `id, v<version>, title` per discussion once its summary is in the feed " +
			"(`--json`: `{ids, summaries, failed}`); a failed summary exits 1. " +
			"A directory named `discussions` is ingested as `ingest ./discussions`."},

	{"generate", "generate biography NAME [--json] [--no-wait]",
		"Resolves NAME through the KG's aliases, publishes a request and waits for the page:\n\n" +
			"`{subject, version, sentences:[{text, status, citations:[{chunk_id, text}], facts, note, offline_fallback?}], dropped, " +
			"stats:{drafted, accepted, corrected, dropped, llm_calls, millis, offline_fallbacks, detected_<type>, fixed_<type>}}`\n\n" +
			"(`offline_fallback` says why the offline engine wrote a sentence the model's answers could not.)\n\n" +
			"It runs the generation stages in-process unless another process owns the data dir (then that one writes the page); " +
			"`--no-wait` prints the request id. " +
			"A request that fails (unknown subject, no page by `--request-deadline`) prints the reason on stderr " +
			"(with `--json`, its status `{request_id, state: \"failed\", error, …}` on stdout) and exits 1.\n\n" +
			"`generate KIND NAME` takes any registered kind; an unregistered one (`generate timeline X`) exits 1 with " +
			"`kind timeline is not registered (registered: answer, biography, discussion_summary, topic_page)` before anything is published."},
	{"generate", "generate topic TOPIC [--json]",
		"A topic page (APOLLO). TOPIC is any entity or alias — a native place as the text writes it (松江华亭, 长洲), " +
			"an office (吏部尚书), an era year (嘉靖二十三年), a person, a glossary term — or free text (Severn Navigation Board).\n\n" +
			"- The writer curates the KG from it (seeds; breadth and depth expansion up to 4 edges with a seen-set and a relevance filter).\n" +
			"- It outlines the page from the KG by topic type: a place → its natives by reign, an office → its holders in order, " +
			"an era year → its jinshi and what happened, a person → their circle, a term → definition and uses, free text → clusters of passages.\n" +
			"- It writes every section sentence by sentence through the verifier, then runs the reviewer → editor loop (at most 3 rounds).\n\n" +
			"Output: `{subject, kind: \"topic_page\", version, sections: [{title, sentences: [{text, status, citations: [{chunk_id, doc_id, text}]}]}], " +
			"sentences, stats: {…, review_rounds, findings_<type>, edits_<op>}}`. " +
			"A topic with no evidence at all fails with `unknown subject` and exits 1."},
	{"generate", "generate topic TOPIC --quotes | generate discussion ID --quotes",
		"With `--quotes`, a topic page or a discussion summary (`discussion` is short for `discussion_summary`) ends each section with at most one " +
			"quotation of the collection ingested with `ingest --collection quotes` that fits it (a summary's sections are the background and each participant), " +
			"each quotation once on the page: `AUTHOR said: \"QUOTE\"`, the words verbatim, citing the quotation. The verifier publishes it only verbatim and " +
			"attributed to its author. Without `--quotes` no quotation is ever written, attributed or not. `--quotes` with another kind, " +
			"or with `--no-wait`, exits 2."},

	{"verify", "verify --subject NAME --text SENTENCE [--correct] [--json]",
		"One sentence through the same verifier, router and solvers the pipeline uses, against the subject's reference set: " +
			"`{status, error_type, evidence:[{chunk_id, text}], corrected?}`."},

	{"retrieve", "retrieve NAME [--json] [--k N]",
		"The reference set the writer would use (`kg`) and the vector-only baseline's top-k (`vector`), each `[{chunk_id, text, score}]`."},

	{"quote", "quote TOPIC_OR_TEXT [--json] [--n N]",
		"The quotations of the collection ingested with `ingest --collection quotes FILE` that fit a topic or a text, best first: " +
			"`[{text, author, score, chunk_id, tags}]`, text byte for byte as the collection holds it and author as it names them. " +
			"Candidates are the quotations of the tags the query names (the knowledge graph) and the nearest by embedding; " +
			"a fitted model ranks them (tag, word overlap, embedding similarity, the author's record in the collection) and " +
			"maximal marginal relevance keeps near-duplicates out. An empty collection prints `[]`."},

	{"retract", "retract DOC_ID|SOURCE [--json]",
		"Retracts a document (by id, or the current version of a source). " +
			"It is marked retracted at once (every stage skips what is left of it), " +
			"then the retractor removes its chunks, mentions, vectors and every fact only it gave " +
			"(a fact another document also states keeps that provenance), and the scheduler regenerates the pages that cited it. " +
			"Prints the mark `{doc_id, source, reason, at}`; asking again prints the same mark; an unknown id or source exits 1."},

	{"answer", "answer QUESTION [--docs FILE] [--json] [--tau F] [--answer-sentences N] [--llm-base-url URL --llm-model M]",
		"An attributed answer (RAAC, in ALCE's format): every sentence cites a minimal set of documents that support it.\n\n" +
			"- `--docs FILE` (or - for stdin): ALCE documents `[{title, text}]` (or an ALCE item `{docs: […]}`); citations index them from 1, as ALCE writes `[k]`. " +
			"The answer is made in the process, without services: the offline engine extracts the sentences most relevant to the question " +
			"(BM25, term weights counted on the documents' sentences); with `--llm-base-url` and `--llm-model` the model proposes sentences and citations " +
			"(prompt `answer.v1`, strict JSON), and falls back to the offline engine when no answer can be used.\n" +
			"- The citation agent checks each sentence with the claim-support judge: its own citations reduced to a minimal subset, " +
			"else citations discovered among the other documents, else the sentence is dropped. " +
			"The calibration gate drafts again from the documents the supported sentences cite when the draft's citation quality " +
			"(F1 of ALCE citation recall and precision) is below `--tau` (default 0.8; negative: no gate) and keeps the better draft. " +
			"The verifier checks every sentence again; one it turns down is not printed.\n" +
			"- Without `--docs`, the question is a request of kind `answer` through the generation stages, answered from a retrieval over the KG, " +
			"the linker's mentions and the vectors (as `POST /v1/requests {\"kind\": \"answer\", \"subject\": QUESTION, \"documents\"?: […]}`).\n\n" +
			"Output: `{question, sentences: [{text, citations: [k, …]}], documents?, dropped, quality: {sentences, recall, precision, score}, " +
			"gate: {tau, fired, reduced, first, second, kept, note}, engine, fallback?, stats: {sentences, unverified, llm_calls, fallbacks}}`. " +
			"Documents that are not JSON, none, or one without text: exit 1 naming it; no question or a bad `--tau`: exit 2."},

	{"summarize", "summarize discussion FILE|- [--json]",
		"A discussion summary (KGDS), offline and without services. " +
			"FILE is one KGDS-style object (`SBK` background paragraphs, `KGD` turns; other fields ignored), a JSON array or JSON Lines of many. Output:\n\n" +
			"`{id, background: {paragraphs: [paragraph_index, …], sentences: [{text, citations: [{paragraph_index}]}]}, " +
			"opinions: [{participant, sentences: [{text, entities: […], citations: [{turn}]}]}]}`\n\n" +
			"(`turn` 0-based into `KGD`; one line per summary for several). " +
			"Not JSON, no `SBK`/`KGD`, an empty turn: exit 1 naming the record. " +
			"A discussion without `id` gets `d-<16 hex>` from its content (the id the stream gives it too)."},

	{"support", "support --claim TEXT --evidence-file F [--engine offline|llm] [--json]",
		"Whether evidence supports a claim, without services. F holds one or more passages separated by blank lines " +
			"(`-` reads stdin; a passage may open with a source line `[n] URL` and a blank line, as ExpertQA writes them); " +
			"citation markers such as `[1]` in the claim are ignored. Output:\n\n" +
			"`{label: complete|partial|missing, spans: [{passage, start, end, text}], score, engine}`\n\n" +
			"(`passage` 0-based, `start`/`end` rune offsets into it; `score` the probability of complete support). " +
			"The offline engine is a logistic model fitted on ExpertQA (`internal/lang/en/support/data/model.tsv`); " +
			"`--engine llm` asks the model on the `--llm-*` server, keeps only verbatim spans and falls back to the offline judge " +
			"when its answers are all rejected (`fell_back`). No claim, no evidence file, an unreadable or empty one: exit 2."},

	{"kg", "kg show NAME [--text] [--json]",
		"The entity a name or alias denotes: `aliases`, `edges` (`relation`, `tail`, `chunk_id`, span, evidence, method), `chunks`; " +
			"an ambiguous name shows the best candidate and lists the others under `candidates`."},

	{"chunk", "chunk FILE --json",
		"The chunks of one document exactly as the chunker stage makes them: `[{id, subject, attached, main, start, end, text}]`, " +
			"offsets in characters (runes). " +
			"`attached` is true on the chunk that opens the entry of a person whose own entry opens inside another's " +
			"(附传, a relative with a formula of his own); `main` names that other person (on the attached person's later chunks too)."},

	{"serve", "serve [--addr H:P] [--stages=false]",
		"The HTTP API ([HTTP API](api.md)); in the embedded mode it also runs every stage. " +
			"Timeouts: 10 s for a request's headers, 30 s for the whole request with its body, 120 s for an idle keep-alive connection; " +
			"none on writing, so event streams last as long as their request."},

	{"consume", "consume STAGE...",
		"Stages, each a member of its consumer group (`annalist topology` lists them; `ingest`, `generate` and `all` name groups of stages); " +
			"SIGINT/SIGTERM drains them."},

	{"topology", "topology [--json] [--mermaid]",
		"Prints the streaming graph (as a Mermaid flowchart with `--mermaid`)."},
	{"topology", "topology apply --brokers H:P",
		"Creates every topic and dead-letter topic idempotently."},

	{"broker", "broker",
		"A standalone embedded broker for multi-process runs."},

	{"dlt", "dlt list TOPIC [--since S] [--json]",
		"What a topic's dead-letter topic holds: per dead letter its origin, group, error, attempts, event id and whether it was replayed (every tenant's). " +
			"TOPIC is the original topic, e.g. `documents`, or `all`; `--since` an RFC 3339 time or a duration such as `1h`. " +
			"Exit 0, 1 on an error, 2 on a usage error."},
	{"dlt", "dlt replay TOPIC [--since S] [--offset P:O] [--json]",
		"Publishes the dead letters not yet replayed to their topic again with their key, value, headers and event id, acks=all, " +
			"and marks each replayed in Redis (`dlt:replayed:<dlt topic>:<partition>:<offset>`); " +
			"the DLT record stays, a second replay skips it; `--offset` selects DLT positions. " +
			"Exit 0, 1 on an error, 2 on a usage error."},

	{"eval", "eval segmentation --data DIR [--no-listing] --json",
		"Segmentation quality on liezhuan volumes:\n\n" +
			"- against line 1's listing: `volumes`, `volumes_exact`, `name_recall`, `name_precision` (main entries);\n" +
			"- every entry chunk's subject, attached ones included, in `subjects`, `subjects_named`, `subject_precision`, " +
			"with the subjects that are not names in `not_names` (subject, volume, chunk, reason);\n" +
			"- against the entry openings the text shows (`entries`: `recall`, `precision`; " +
			"the measure for volumes whose line 1 lists only some people, as in the Draft History of Qing).\n\n" +
			"`--no-listing` hides line 1 from the chunker and still scores against it (rules in `internal/evaluation/eval`'s package doc)."},
	{"eval", "eval extraction --data DIR [--failures] --json",
		"The offline chunker and extractor over every volume, scored per relation " +
			"(`courtesy_name`, `native_place`, `jinshi`, `death`, `death_age`) " +
			"against gold read from each entry's opening sentences and closing formulas: " +
			"`predicted`, `correct`, `supported` (no gold, but the value stands with its cue in the person's own sentences), " +
			"`precision` ((correct + supported) / predicted), `gold_precision`, `recall`, " +
			"for `dev_rest`, `held_out` (every third volume in file order) and `all`. " +
			"`attached`: of the people line 1 names in parentheses, the share with a fact of their own " +
			"(rules in `internal/evaluation/eval/extraction.go`)."},
	{"eval", "eval retrieval --data DIR [--strict] --json",
		"KG retriever vs vector-only baseline: `{\"kg\": {precision, recall, f1}, \"vector\": {…}, \"strict\"}` " +
			"(queries: people on line 1 of each volume with an entry of their own; rules in `internal/evaluation/eval`).\n\n" +
			"By default a chunk is relevant when it lies in the person's entry, attached people's entries inside it included, or names the person. " +
			"With `--strict` the gold is the person's own text (the entry up to the first paragraph that opens another person's entry, " +
			"or the first opening inside a paragraph of someone line 1 names in parentheses), " +
			"and a chunk of an attached person's entry is relevant only when it names the person."},
	{"eval", "eval mentions [--data DIR]... [--sample N] [--recall N --recall-collection C] [--ambiguous N] [--seed S] --json",
		"Entity linking: ingests each `--data` folder in order into a fresh data directory (or reads `--data-dir`), links every stored chunk, " +
			"and reports mentions (`mentions`, `resolved`, `ambiguous`, `unresolved_single`, `reviewed`, `resolved_outside_entry`, per collection) " +
			"and seeded samples for judging by reading:\n\n" +
			"- `samples`: resolved mentions outside the person's own entry (precision);\n" +
			"- `recall`: occurrences of a graph person's full name in collection C with what the linker made of them " +
			"(`recall_linked_by_name_length` of `recall_sampled_by_name_length`);\n" +
			"- `ambiguous`: mentions several persons may denote with their probabilities and review;\n" +
			"- `surface_shares`: the mean share of names among the counted occurrences of names and of courtesy names " +
			"(what a profile's `linker.name_prior` and `linker.alias_prior` are set from)."},
	{"eval", "eval linking [--data DIR]... [--held-out] [--fit DIR] [--unlisted none|counts|fit] --json",
		"The linker's mention model, fitted on the biography volumes " +
			"(default: the History of Ming and the Draft History of Qing, volumes numbered by multiples of 5 and of 3 held out) " +
			"with the free labels their listings give.\n\n" +
			"- The volumes without a listing on line 1, labelled by the subjects of the main entries the chunker opens, " +
			"add to the character counts by default (`--unlisted counts`); `fit` also fits on them, `none` leaves them out " +
			"(see the entity-linking figures in [Numbers](numbers.md#entity-linking)).\n" +
			"- 5-fold cross-validated by volume (`cross_validated`: `auc`, `log_loss`, `precision`, `recall`, `rejected_by_kind`).\n" +
			"- `--held-out` scores the held-out volumes.\n" +
			"- `--fit DIR` writes `mention_model.tsv` and `mention_chars.tsv` into a profile directory " +
			"(`annalist eval linking --fit internal/lang/profile/data/liezhuan` fits the shipped model again)."},
	{"eval", "eval injection --data DIR --n N --seed S --json",
		"Injects errors (era year, Gregorian year, native place, courtesy name, examination rank, a fabricated clause) " +
			"into supported sentences of generated biographies, mixed with as many untouched ones; " +
			"per type detection recall, routing accuracy, correction accuracy; " +
			"overall detection precision and the residual error rate of the published text."},
	{"eval", "eval topics --data DIR [--data DIR2] [--min 3] [--limit N] --json",
		"Topic pages of every place with at least `--min` natives and every era year with as many jinshi, " +
			"gold read from the text (entry openings `Name，字X，Place人。` and `举/登 <era year> 进士`; rules in `internal/evaluation/eval/topics.go`):\n\n" +
			"- `coverage` (gold people named on the page), `citation_rate`, " +
			"`grounding` (every person a sentence names appears in a chunk it cites);\n" +
			"- overall, `by_type`, `dev` and `held_out` (topics whose name hashes to the last fifth);\n" +
			"- `pages_per_second`, `failures`.\n\n" +
			"`--results` adds each topic's figures."},
	{"eval", "eval kgds --data FILE [--results] --json",
		"KGDS, overall, dev and a held-out fifth (`internal/evaluation/eval/kgds.go`):\n\n" +
			"- background-supporting paragraph precision, recall and F1 (macro, as the paper);\n" +
			"- opinion entity recall against the gold opinions' **bold** entities, and entity precision " +
			"(of the opinions' entities, the share the gold opinions name, bold or in plain text; `entity_precision_bold` counts bold only);\n" +
			"- the share of opinion sentences still carrying a bare third-person pronoun (and the gold's own)."},

	{"eval", "eval quotes --data DIR_OR_FILE [--topics 50] [--top 10] [--seed 1] --json",
		"Quotations (`internal/evaluation/eval/quotes.go`): the collection (a quotable file, or a folder holding `quotable_quotes.json`) is ingested " +
			"into a fresh data directory with the tags of a held-out fifth (quotations whose id's FNV-1a hash is 0 modulo 5) withheld; " +
			"`quote` is asked for five quotations for `--topics` tags drawn with `--seed` and for the `--top` most frequent tags but \"Famous Quotes\", " +
			"ranking within all quotations, the development ones and the held-out ones. Output: `verbatim_rate` and `attribution_rate` " +
			"(every returned text is a record's content byte for byte, by that record's author), and precision@5 by tag " +
			"(`top_tag_scores`, `random_tag_scores`: `p5_all`, `p5_dev`, `p5_held_out`) with macro averages over the tags " +
			"at least five quotations of the split carry (`top_tags`, `random_tags`)."},

	{"eval", "eval support --data FILE [--engine offline|llm] --json",
		"Claim support on ExpertQA (`internal/evaluation/eval/support.go`; default data `expertqa/domain_test.jsonl`): every claim with evidence " +
			"and an expert label of Complete (positive), Partial or Incomplete (negative) is judged; overall, `dev` and `held_out` " +
			"(questions whose FNV-1a hash is 0 modulo 5) each give `agreement`, `balanced_accuracy`, the recalls, the `confusion` " +
			"(expert label × judge label) and the `majority_baseline`; `skipped` counts the Missing, N/A and evidence-less claims; " +
			"`anchor_safe_agreement` is SAFE's 0.72 agreement with humans. `--engine llm` adds the judge's counters and the model's usage."},

	{"eval", "eval answers --data DIR [--retrieval] [--keep] --json",
		"Attributed answers on the ALCE demonstrations (`internal/evaluation/eval/answers.go`; default data `alce`): each question is answered " +
			"by the answer kind's offline engine from its documents, every sentence checked by the verifier as `answer --docs` does, and scored " +
			"with the support judge: ALCE's citation `recall` (sentences their citations support completely) and `precision` (citations that are " +
			"needed or support alone), `cited_share`, dropped sentences and gate firings; the hand-written answers are scored beside them (`gold`). " +
			"`dev` and `held_out` (the last demonstration of each file) apart. `--retrieval` also ingests every demonstration's documents as one " +
			"English corpus into a fresh data directory and asks each question without documents: the same figures, and `retrieved_gold`, " +
			"the questions whose retrieved references include a document the hand-written answer cites."},

	{"bench", "bench ingest --data DIR [--engine offline|llm] [--processes K] --json",
		"The whole ingestion pipeline, embedded, from an empty data directory: " +
			"`documents`, `chars`, `chunks`, `triplets`, `seconds`, `chars_per_second`, and the published Alstorian anchor beside it.\n\n" +
			"`--engine llm` runs the chunker and extractor with a model: a scripted OpenAI-compatible server the bench starts on loopback " +
			"(`internal/evaluation/eval/ingestmodel.go`; answers derived from the prompt's text, never from gold), or the server `--llm-base-url` names. " +
			"It adds `llm_calls`, `llm_calls_per_chunk` and `llm` " +
			"(calls per stage, regex synthesis and plan B, gaps filled from regex memory, gaps not asked about, per relation).\n\n" +
			"`--processes K` runs the ingestion stages that do not write the vector index as K `annalist consume` processes " +
			"joined to the bench's broker and Redis (the embedder and the retractor stay in the bench, which owns the index); " +
			"`chunks` and `vectors` then come from the stores, and `triplets` is not counted."},
	{"bench", "bench generate --data DIR --n N [--concurrency C] [--kind biography|topic|all] [--processes K] --json",
		"Ingests DIR, starts the generation stages and lets them read the ingestion's graph updates " +
			"(`catch_up_seconds`: the scheduler reads each, and none asks for a page yet), " +
			"then requests N pages of the kind with C in flight (embedded, offline engine).\n\n" +
			"Reports `kind`, `p50_ms`, `p99_ms`, `pages_per_second`, `sentences`, per-hop latency, `redis` per page and `stage_seconds` over the requests. " +
			"Topic pages are drawn (seeded) from the places, offices and era years with at least 3 edges; " +
			"`--kind all` prints both kinds side by side (a JSON array).\n\n" +
			"`--processes K` runs the generation stages, scheduler included, as K `annalist consume generate` processes " +
			"joined to the bench's broker and Redis (`processes` in the output; `stage_seconds` is then left out, the stages being theirs)."},
	{"bench", "bench regenerate --data DIR --pages N --updates M [--notes plain|context] [--processes K] [--kind biography|topic|all] --json",
		"Ingests DIR, publishes N biographies of persons drawn at random from those with an entry " +
			"(topic pages of places with `--kind topic`, whose notes name a native of the place), " +
			"then streams M documents about subjects with pages, in three rounds — " +
			"new notes (new evidence), new versions of them under the same source (superseded), their retraction — " +
			"waiting in each round until every affected page has a version naming the document that cites it (or, after the retraction, no longer does).\n\n" +
			"Notes are `plain` by default: the person's name and a new statement in one of several wordings, with nothing else a reader could tell him by; " +
			"`--notes context` writes the older notes that carry his examination year and native place.\n\n" +
			"Reports `pages`, `updates`, `regenerated`, `doc_to_page_p50_ms`, `doc_to_page_p95_ms`, `pages_per_second`, " +
			"`sentences_kept`, `sentences_rewritten`, `sentences_added`, `sentences_removed`, `kept_share`, and:\n\n" +
			"- `stale_citations`: current pages citing a retracted chunk;\n" +
			"- `untouched`: pages without a changed dependency that kept their version;\n" +
			"- `missed`: updates whose page did not follow within a minute (those subjects sit out the later rounds); " +
			"`uncited`: of them, those a version named without citing;\n" +
			"- `missed_rate`, `missed_by_name_length`, `subjects_by_name_length`;\n" +
			"- `missed_updates`: round, subject, the person named and the note of each missed update;\n" +
			"- `notes`, `subjects`, `rounds`.\n\n" +
			"`--processes K` runs the generation stages, scheduler included, as K `annalist consume generate` processes joined to the bench's broker and Redis."},
	{"bench", "bench ingest|generate|regenerate … [--baseline BIN [--repeat N]] [--cpuprofile F] [--blockprofile F] [--mutexprofile F]",
		"`--baseline BIN` runs the same benchmark N times (default 3) with this binary and N times with BIN, alternating, each run a fresh process, " +
			"and prints both medians of every numeric figure and their ratio (`median`, `baseline_median`, `ratio`, and every run); " +
			"the fixed baselines in [Numbers](numbers.md) are measured this way. " +
			"The profile flags write pprof profiles of the bench's own process (`go tool pprof F`).\n\n" +
			"`bench ingest` and `bench generate` also report `redis` " +
			"(round trips, a pipeline or script call counting once, per document or per page requested, the client's seconds, " +
			"the commands that made most of them, and the connections opened), " +
			"and `bench ingest` `stage_seconds` (each stage's time in its handler: the stage nearest the run's length is the one it waited on)."},
	{"bench", "bench discussions [--data FILE] [--n N] [--json]",
		"KGDS discussions (default `../shared/data/kgds/dev.json`) through the stream, embedded, offline engine, from a fresh data directory: " +
			"`discussions`, `summaries`, `failed`, `summaries_per_second`, `p50_ms`, `p95_ms`, `max_ms` (publish → feed item, per discussion), " +
			"`sentences` (background / opinions), `dropped`."},
	{"bench", "bench vector [--dataset clustered] --json",
		"Recall@10 of the embedded HNSW index against exact search over `--n` vectors (default 20000) of `--dim` dimensions (default 256), " +
			"random or, with `--dataset clustered`, clustered."},

	{"help", "help [COMMAND] [--markdown]",
		"Lists the commands with their usage lines; with COMMAND, that command's reference. " +
			"`--markdown` prints the whole reference as Markdown: it is this page (`" + regenerateCommandsDoc + "` writes it again)."},
}

func cmdHelp(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("help", io.Stderr)
	markdown := fs.Bool("markdown", false, "print the whole command reference as Markdown ("+commandsDocFile+")")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return fmt.Errorf("%w: want `help [COMMAND] [--markdown]`", errUsage)
	case *markdown && len(pos) > 0:
		return fmt.Errorf("%w: --markdown prints the whole reference; leave out %q", errUsage, pos[0])
	case *markdown:
		return writeHelpMarkdown(io.Stdout)
	case len(pos) == 1:
		return writeHelpCommand(io.Stdout, pos[0])
	}
	return writeHelpText(io.Stdout)
}

// helpCommands is the reference's commands in order of first appearance.
func helpCommands() []string {
	var names []string
	seen := map[string]bool{}
	for _, e := range helpReference {
		if !seen[e.command] {
			seen[e.command] = true
			names = append(names, e.command)
		}
	}
	return names
}

// writeHelpText prints the plain-text list: each command with its
// summary from the registry and its usage lines.
func writeHelpText(w io.Writer) error {
	cmds := commands()
	var b strings.Builder
	b.WriteString("usage: annalist COMMAND [flags] [args]\n\ncommands:\n")
	names := helpCommands()
	var rest []string
	for n := range cmds {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	for _, n := range append(names, rest...) {
		fmt.Fprintf(&b, "  %-10s %s\n", n, cmds[n].summary)
		for _, e := range helpReference {
			if e.command == n {
				fmt.Fprintf(&b, "               annalist %s\n", e.usage)
			}
		}
	}
	b.WriteString("\nRun `annalist help COMMAND` for a command's reference, `annalist COMMAND -h` for its flags,\n" +
		"`annalist help --markdown` for the whole reference as Markdown (" + commandsDocFile + ").\n" +
		"Flags may also be set as environment variables ANNALIST_<FLAG> (e.g. ANNALIST_DATA_DIR); flags win.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHelpCommand prints one command's reference as plain text.
func writeHelpCommand(w io.Writer, name string) error {
	cmd, ok := commands()[name]
	if !ok {
		return fmt.Errorf("%w: unknown command %q (`annalist help` lists them)", errUsage, name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "annalist %s: %s\n", name, cmd.summary)
	for _, e := range helpReference {
		if e.command != name {
			continue
		}
		fmt.Fprintf(&b, "\nannalist %s\n", e.usage)
		for _, line := range wrapDescription(e.description, 76) {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("    " + line + "\n")
		}
	}
	fmt.Fprintf(&b, "\nRun `annalist %s -h` for its flags.\n", name)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHelpMarkdown prints the reference as the Markdown page kept in
// commandsDocFile.
func writeHelpMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Commands\n\n")
	b.WriteString("<!-- Generated by `" + regenerateCommandsDoc + "` from internal/wiring/cli/help.go; edit that file, not this one. -->\n\n")
	for _, line := range wrapDescription(helpIntro, 100) {
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
	for _, n := range helpCommands() {
		fmt.Fprintf(&b, "- [`%s`](#%s)\n", n, n)
	}
	last := ""
	for _, e := range helpReference {
		if e.command != last {
			fmt.Fprintf(&b, "\n## %s\n", e.command)
			last = e.command
		}
		fmt.Fprintf(&b, "\n```\nannalist %s\n```\n\n", e.usage)
		for _, line := range wrapDescription(e.description, 100) {
			b.WriteString(line + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrapDescription breaks a Markdown description into lines of at most
// width characters where it can: paragraphs stay apart (an empty line
// between them), list items keep their "- " and indent what follows, and
// no line is broken inside a code span. A word longer than width stays
// whole.
func wrapDescription(text string, width int) []string {
	var out []string
	for i, para := range strings.Split(text, "\n\n") {
		if i > 0 {
			out = append(out, "")
		}
		for _, line := range strings.Split(para, "\n") {
			first, indent := "", ""
			if strings.HasPrefix(line, "- ") {
				first, indent, line = "- ", "  ", strings.TrimPrefix(line, "- ")
			}
			out = append(out, wrapLine(line, width, first, indent)...)
		}
	}
	return out
}

// wrapLine fills words into lines of at most width runes, the first line
// starting with first, the others with indent.
func wrapLine(line string, width int, first, indent string) []string {
	var out []string
	cur, inCode := first, false
	curLen := len([]rune(cur))
	fresh := true
	for _, word := range strings.Split(line, " ") {
		n := len([]rune(word))
		if !fresh && !inCode && curLen+1+n > width {
			out = append(out, cur)
			cur, curLen, fresh = indent, len([]rune(indent)), true
		}
		if !fresh {
			cur += " "
			curLen++
		}
		cur += word
		curLen += n
		fresh = false
		if strings.Count(word, "`")%2 == 1 {
			inCode = !inCode
		}
	}
	return append(out, cur)
}
