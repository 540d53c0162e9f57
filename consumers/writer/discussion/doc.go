// Package discussion is the discussion_summary kind (issue 12, seed 003,
// KGDS): for a discussion about a news story, the background paragraphs a
// reader needs and each participant's opinions as clear atomic statements
// in which implicit references are replaced by the entities they denote.
// This file set is the offline engine: pure Go, rule-based, English.
//
// # Graph (BuildGraph)
//
// The discussion's small knowledge graph of its background, from the text
// alone. Entities are capitalised sequences (inner "of", "for", "de" …
// allowed), without leading function words, titles, days and months; a
// sentence-initial word that the text also writes in lower case is a
// common word, not a name; a single demonym before a noun ("the Romanian
// star") describes rather than names. Shorter names that are the last
// words of a longer one (a surname) or its first words (a team's city)
// are aliases of it, the earliest-named owner winning; a bracketed acronym
// after a name is its alias; a person's surname is an alias even where the
// background never writes it alone, unless two people share it. Roles are
// the lower-case nouns before a name ("coach Sandy …"), the apposition
// after it, and descriptions that open a sentence or follow a clause
// ("The Spaniard …", "…, the Romanian star faded"), tied to the previous
// sentence's subject (an organisation head such as "club" to the last
// organisation named). Gender comes from the pronouns that follow a
// person's name in the sentence (or open the next one); an organisation
// the text calls "they" more than "it" is plural (sports teams in British
// reports). Kind: event, organisation and place words in the name,
// acronyms, plural names after "the", two or three capitalised words.
//
// # Statements (SplitSentences, AtomicStatements)
//
// Sentences end at . ! ? before white space and a capital, a digit or a
// quote, except after an abbreviation or an initial. A sentence is split
// at ";", "and", "but", "while", "so" … only when both sides are clauses
// (a finite verb each, or a subject pronoun), so "the coach's guidance and
// the coordination" stays whole; a right side that opens with an
// auxiliary shares the left's subject, which is written out. Discourse
// markers ("No,", "Indeed,", "I disagree,") and hedges ("I think that")
// are dropped: the opinion sentence says whose opinion it is. "because"
// keeps its reason: the reason is part of the opinion.
//
// # Resolver (Resolver)
//
// Turn by turn, statement by statement. A name written in part gets its
// canonical form. A third-person pronoun's candidates are the entities of
// the right kind, gender and number: "he"/"she" persons of that gender
// (unknown gender allowed, penalised), "they" organisations (plural ones
// preferred), "it" singular organisations and events (and never before a
// copula: "it would be impossible" is an expletive). A role phrase ("the
// coach", "this institution") takes the entities carrying that role, or
// any organisation for an organisation head. Scores: recency in the
// discussion (the most recently named candidate first, by rank), a bonus
// when the same participant named it last, background salience (mentions,
// named in the first paragraph). Binding: an object pronoun is not its
// clause's subject ("she was beaten by her"), "hers" not the "her" it is
// compared with. Below a confidence floor, or without a margin over the
// runner-up, the reference is left as written and counted (Resolutions):
// a wrong entity misleads a reader more than a pronoun does.
//
// Group references ("the two teams", "both sides", "these two players",
// "these three companies") denote the list of entities of the head's kind
// that the supporting paragraphs (Focus: SelectBackground's choice; the
// whole background when they name none) name together — "X and Y", "X vs
// Y", "X beat Y", "A, B and C" — when exactly one list has the reference's
// size; they are written "X and Y". The story's contest (its first pair
// of teams, else of people a contest word joins) completes "this match"
// ("the match between X and Y") and "the opponent" (the side the
// statement or the discussion did not name last). A role phrase is never
// an entity its own statement already names.
//
// # Summary (Summarize)
//
// Background: SelectBackground's paragraphs, each sentence cited to its
// paragraph. Opinions: per participant in speaking order, one sentence per
// atomic statement, "PersonN thinks that …" citing its turn (0-based);
// a statement about the speaker ("I hope …") is written "PersonN hopes
// …". Entities are the background entities the sentence names after
// resolution, by canonical name, for a reader to link.
package discussion
