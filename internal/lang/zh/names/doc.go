// Package names says whether a run of characters that opens a sentence of
// a biography volume is a person's name, from evidence the corpus gives
// rather than rules: the chunker asks it before it opens an entry for an
// opening the volume's listing does not confirm.
//
// Three things are learned from the corpus (the development volumes of
// the History of Ming and the Draft History of Qing), with the labels the
// volumes give for free: a run the listing (the heading lines) writes is a
// name, a line that opens with a run and a courtesy name or a native
// place opens an entry and so with a name, a run the listing does not hold
// and after which nothing presents a person is the opening words of a
// clause (Runs).
//
//   - A character model (Model): a logistic regression over the run's
//     characters (the first, the last, the middle ones, any, and the
//     two-character pieces), the two classes weighted equally, so that its
//     score is the log of how much likelier the characters are for a name
//     than for a clause.
//   - A judge (Judge): a second logistic regression, over the character
//     model's score given out of fold and what the document says of the
//     run (it writes it again; it writes it as a given name after a
//     surname or a kinship word; the run begins with a name the document
//     presents; the listings write its rarest character), and a prior by
//     what the words after the run say (a courtesy name, a native place or
//     clan, another entry formula, a kinship clause, …): the log of how
//     much more often those words follow the labelled names than the other
//     runs. A run is a name when the two sum above 0.
//   - The characters the corpus writes as surnames (Judge.Surname): the
//     first characters of the labelled full names and of the listed names
//     written after an office.
//
// The fitted judge ships as data (data/<profile>.tsv, read by For);
// TestFitted refits it from the evaluation data, checks the file is what
// the fit writes and that the cross-validated figures hold (go test
// ./internal/lang/zh/names -run TestFitted -update writes it anew). The file's
// header gives the out-of-fold figures.
package names
