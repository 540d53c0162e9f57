// Package discourse is the offline core of the discussion_summary kind
// (KGDS): for a discussion about a news story, the
// background paragraphs a reader needs and each participant's opinions as
// clear atomic statements in which implicit references are replaced by the
// entities they denote. Pure Go, rule-based, English. It sits below the
// stages because two of them use it: the kind's drafter
// (consumers/writer/summary) writes with Summarize, and the verifier
// checks every turn-cited sentence, whoever wrote it, with VerifyOpinion.
//
// # Graph (BuildGraph)
//
// The discussion's small knowledge graph of its background, from the text
// alone. Entities are capitalised sequences (inner "of", "for", "de" …
// allowed), without leading function words, titles (also abbreviated:
// "Minnesota Gov. Tim Walz" is Minnesota and Tim Walz, governor), days,
// months and dates ("Sept. 24"); a capital letter or a small number after
// a name inside a sentence is part of it ("Serie A", "League 2"). What the
// text itself shows decides what is a name: a capitalised word opening a
// sentence, a quote or a colon is a common word when it is an
// interjection ("Yeah", "Oh"), when the background or the
// turns also write it in lower case, or when it has a common-noun ending
// and is never capitalised mid-sentence (a negated participle, "Unbeaten
// Juventus", is an adjective, but "East" opening "East Sussex" stays; so
// is an opening word with an adjective's ending before a role noun and a
// name, "Dissident rapper Toomaj Salehi", "Reigning champion Real
// Madrid"); a single demonym before a noun ("the Romanian star") describes
// rather than names; a role word inside a sequence splits it ("Raiders QB
// Gardner Minshew": a team and a person), as one opening it does ("Senior
// Abby Paloranta"). Shorter names that are the last words of a longer one
// (a surname) or its first words (a team's city) are aliases of it, the
// earliest-named owner winning (a place written after "in" that ends a
// name of three words or more is its own entity: "in Nigeria", "the
// Sussex Squad Nigeria"); a bracketed acronym after a name is its
// alias, and one written alone the alias of the one name whose initials
// spell it ("PSG", "Paris St-Germain": no person then); a person's surname
// is an alias even where the background never writes it alone, unless two
// people share it (a single letter, a number or "Jr" is no surname).
//
// Roles are nouns with noun evidence in the text (a title, a person-role
// noun, an agent suffix, a word written after a determiner and never as a
// verb): before a name ("coach Sandy …"; an organisation's role noun also
// before "the" and its name, "Governing body the FIA", not after a
// determiner: "the team the Yankees beat"), in the apposition after it, before a
// comma and the name in apposition ("The club's chairman, Victor Lund,
// said"), and in descriptions that open a sentence or follow a clause ("The Spaniard
// …"), tied to the previous sentence's subject. RoleOf records where a
// role is held ("FIFA president Gianni Infantino", "X, the coach of Y",
// "Y's captain X"). Gender comes from the pronouns that follow a person's
// name (to the sentence's subject, unless the subject is a role's holder,
// "Chicago outfielder Zach DeLoach hit his …", or one the text treats as
// an organisation; a sentence-opening "He" to the previous sentence's
// subject, or its first person when a phrase opens it: "In an interview,
// French President Emmanuel Macron said …", else its first name not
// written "the X" nor a preposition's object: "drafted by the Mercury …
// She is" votes for no team, "started his career at Partizan … In his"
// for no club; a sentence opening with a description of a person, "The
// 26-year-old started …", continues the person last named),
// from a gendered title ("Mr",
// "Ms") and from winning a men's or a women's event; an organisation the
// text calls "they" more than "it" is plural (a plural common noun
// between the name and "they" is what it takes up: "had 52,000 visits,
// many of them …"). Kind is decided from all of
// an entity's mentions at the end: pronouns after it, "the X" heading a
// phrase, the role nouns attached to it, a name before a role and another
// name (the holder's organisation), the kind of the names it is joined
// with by "and", "vs" or a tight contest ("X beat Y", "X 2-1 Y"), the
// sides of a contest (names a score or a contest word joins, "a 4-1
// victory at Hoffenheim", but not a scorer: "Wagner scored in a draw to
// Park Center", nor a name after a clause break: "a lead against the
// champions when Romain del Castillo converted") are organisations when
// nothing says person, the beaten side of a win ("a 4-0 victory against
// Real Betis", "wins over X", not "his victory over Andrew Golota"), the
// other side of a home or an away result ("a 3-0 home defeat to
// Westbrook Rovers") and both ends of a transfer ("joined Harbour City
// from Northgate Athletic") are teams, a name whose own verb is followed
// by "its" ("Real Madrid began its title defense") is no person, the sides of a
// result line ("Hamilton Academical 1-2 Ross County") are teams whatever
// their words, a state's word in the name ("United States", "Republic of
// Ireland": a place, though "United" also ends clubs' names), "in X" or a
// compass adjective ("northeastern British
// Columbia") for a place (outweighing a stray pronoun vote), "X, Y" for a
// locality X, and organisation, event and place words in the name
// (BuildGraph's comment lists the evidence in full: possessives before
// fans or scores, plural verbs (also after a name ending in "s" that opens
// a sentence, when the text capitalises it elsewhere: "Juventus have"), lists joined by "beat" or "against",
// company suffixes, possessives inside institution names, a lone surname
// that speaks).
//
// # Statements (SplitSentences, AtomicStatements)
//
// Sentences end at . ! ? before white space and a capital, a digit or a
// quote, except after an abbreviation or an initial. A sentence is split
// at ";", "and", "but", "while", "so" … only when both sides are clauses
// (a finite verb each, or a subject pronoun), so "the coach's guidance and
// the coordination" stays whole; a right side that opens with an auxiliary
// shares the left's subject, which is written out. Discourse markers
// ("No,", "Indeed,", "I disagree,") and hedges ("I think that") are
// dropped: the opinion sentence says whose opinion it is. "because" keeps
// its reason: the reason is part of the opinion.
//
// # Resolver (Resolver)
//
// Turn by turn, statement by statement. A name written in part gets its
// canonical form. A reflexive right after a noun only stresses it ("the
// charges themselves") and is left as written, as is a "they" after a
// plural common noun that is its statement's subject ("although the armed
// robberies are concerning, they …"). A third-person pronoun's candidates
// are the entities of the right kind, gender and number: "he"/"she"
// persons of that gender (unknown gender allowed, penalised), "they"
// organisations (plural ones preferred; one the text calls "it" only when
// the discussion named it in this turn or the one before, or it stands in
// the paragraph the turn is most about, since "they" alone is as often
// people in general), "it" singular organisations and events (and never
// before a copula: "it would be impossible" is an expletive, unless a
// modal is followed by a deed, "it should make judgments", or an "as"
// apposition describes it, "as an official body, it is …", whose head
// then favours the entities carrying that role). A plural pronoun of a
// statement that speaks of a country's possessions ("their economy",
// "their inflation rate", "their job market") or calls it a country ("they
// are not a developed country") denotes a place of the story (no
// facility, no locality), not an organisation. A role
// phrase ("the coach", "this institution") takes the entities carrying
// that role, or any organisation for an organisation head, one whose name
// says it for a typed head ("the court", "the government", "the league");
// "this country" is never a locality, and no place outside the turn's
// story is "this area", nor one the background writes before that head's
// plural ("the UK regions": the UK is the whole, not "this region"); "the
// team" after a person prefers that person's
// organisation (fully a role the graph ties to it, half a paragraph naming
// both). Scores: recency in the discussion (the most recently named
// candidate first, by rank), a bonus when the same participant named it
// last, background salience (mentions, named in the first paragraph), and
// the turn's deed: the share of the turn's word mass (IDF; a word the
// background lacks counts as the rarest) that the background writes, in
// words and word pairs found in at most half the paragraphs, after the
// candidate's mention up to the next name, unless a preposition or a
// conjunction follows the name or a preposition precedes it (no subject
// then) ("his goal in the 25th minute" → "Ronan Hale replied after 25
// minutes"). A background often holds several stories (a round-up of
// matches, a list of companies) and each turn talks about one: the turn's
// scope is the paragraphs that share the most content words and word pairs
// (IDF over the paragraphs; a compound also unhyphenated and by its words,
// an ordinal as its cardinal: "the fourth consecutive time", "four
// consecutive times"; an irregular past as its present, "-ize" as "-ise",
// a short stem without its final "e": "came from behind", "coming from
// behind", "equalize", "equalising") with the turn and, at half weight, with the other
// turns of its exchange, or that name the entities those turns name —
// those scoring at least half the best, each with the paragraph before it.
// An exchange is a turn and the replies to it: a turn that opens with
// "No,", "Yes,", "Indeed,", "Well, but" … answers the one before, as does
// one that opens with a third-person pronoun (it names nothing new); any
// other opens a new exchange, and a group a turn named is not what a
// "they" of the next exchange means. A turn that says "he" (or "she") and
// names nobody of that gender weighs at half the paragraphs whose story
// (it and the one before) has no such person. Candidates of the scope are
// preferred to the rest of the background, and within the scope the
// paragraph's weight adds to salience, the two weighing alike. Binding: a
// pronoun is not a name of its own clause ("they beat Juventus", "borrow
// them at the Central Library"); an
// object pronoun is not its clause's subject ("she was beaten by her"),
// "hers" not the "her" it is compared with; "her" before a determiner is
// an object ("given her the window"), not a possessive. "it" after a verb
// of belief ("I doubt it") is the proposition just said and stays as
// written. Below a confidence floor, or
// without a margin over the runner-up, the reference is left as written
// and counted (Resolutions): a wrong entity misleads a reader more than a
// pronoun does.
//
// Group references ("the two teams", "both sides", "these two players",
// "these three companies") denote the list of entities of the head's kind
// that the turn's scope, else the supporting paragraphs (Focus:
// SelectBackground's choice), else the whole background name together — "X
// and Y", "X vs Y", "X beat Y", "A, B and C", "A, B and parts of southern
// C" — the first of these that has lists of the reference's size deciding,
// when exactly one list there has it (a role noun may stand before a
// member: "Sophomore Lamees Abid, junior Kylie Chindavong and junior
// Reese Ruska"; "the other two players", "these three other players": a
// list without anybody of that kind the discussion named in the turn or
// the one before); companies reported one per paragraph
// (revenue, net income (a loss written "-$6.0 billion"), market
// capitalisation) are told apart by the statement's criterion ("these
// three companies … their profit margins exceed 9%": net income over
// revenue; "price-to-sales ratios below 0.5": capitalisation over revenue)
// when exactly that many meet it. A group left unresolved is what a later
// "they" means, so that stays as written too. A group after "between" or
// "among" is in a relation its members share ("the trade war between
// these two countries"), as is one whose statement has a reciprocal
// predicate ("these two teams are evenly matched", "each other"):
// written as the list, in one statement. Any other
// statement about a group is an opinion about each member, so it is
// written once per member ("Tom
// Reid was brilliant", "Sam Okafor was brilliant"), a plural verb after
// the member made singular, a later pronoun of the group written as the
// member's pronoun ("its", "their"), or as the name for a person of known
// gender ("he" would be a word the turn does not have); a later "they" or
// "their" denotes the group while no organisation has been named since (in
// the turn or the next), the first such pronoun of a statement written as
// the member's name. The story's contest (a pair of teams named together,
// else of people a contest word joins, else two teams a sentence joins by
// a contest word: "Detroit to a 3-1 win over the Houston Astros"; in the
// turn's scope first; among several the one with the side the discussion
// named last; a score joins two sides like a contest word, and a name of
// the other kind between them — "Arizona Cardinals QB Kyler Murray … 41-10
// demolition of the Los Angeles Rams" — does not part them) completes
// "this match" ("the match between X and Y") and "the opponent" (the side
// the statement or the discussion did not name last; the side then stays
// the more recent, so a later "he" is still the side). "that" before a
// quantifier ("that neither team") opens a clause, no role phrase. A role
// phrase is never an entity its own clause names, nor one its statement
// resolved before it ("the Reds swept this team"; but "her time with the
// Sparks was outstanding, she led this team" is the Sparks). A role the
// graph ties to an organisation (RoleOf) is written with it: "the
// president" → "FIFA president Gianni Infantino", "as the president, he …"
// → "as the president of FIFA, Gianni Infantino …".
//
// # Summary (Summarize)
//
// Background: SelectBackground's paragraphs, each sentence cited to its
// paragraph. Opinions: per participant in speaking order, one sentence per
// atomic statement, "PersonN thinks that …" citing its turn (0-based); a
// statement about the speaker ("I hope …") is written "PersonN hopes …";
// its first word loses its capital unless it is a name (one the turn
// writes capitalised inside a sentence is, even where the background lacks
// it: "Bolt"). Entities are the background entities the sentence names
// after resolution, by canonical name, for a reader to link.
//
// # Verification (VerifyOpinion)
//
// An opinion sentence, whoever wrote it (this engine or a model), is
// checked against the one turn it cites, deterministically: the
// attribution names that turn's participant; the body aligns with the turn
// word by word (contractions expanded, endings folded; a word the turn
// repeats aligned where the next words match too), a background name
// standing only where the turn has a reference expression (a pronoun, a
// determiner, a group, event or role phrase, or a name of the same
// entity); no negation added or dropped, no number or score the turn does
// not state, no content word the turn lacks. The verdict is the
// verifier's: supported, not_included (added content, no citation) or
// not_supported with an error type (attribution, entity, polarity, value,
// other) and a reason naming the turn and the word.
//
// # Word lists
//
// The English words the rules test against (function words, role and
// organisation nouns, contest verbs, discourse markers, hedges …) are
// data, not code: one list a file under data/, one word or phrase a line
// after a header saying what the list holds and which rule reads it,
// embedded and read once when the package is initialised.
package discourse
