package discourse

import (
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// discussionOf builds a discussion from paragraphs and turns (Person1 and
// Person2 alternating).
func discussionOf(paras []string, turns ...string) schemas.Discussion {
	d := schemas.Discussion{ID: "r"}
	for i, p := range paras {
		d.Background = append(d.Background, schemas.Paragraph{Index: i + 1, Text: p})
	}
	for i, u := range turns {
		d.Turns = append(d.Turns, schemas.Turn{Participant: []string{"Person1", "Person2"}[i%2], Utterance: u})
	}
	return d
}

func wantOpinion(t *testing.T, got []string, want string) {
	t.Helper()
	for _, g := range got {
		if strings.Contains(g, want) {
			return
		}
	}
	t.Errorf("opinions %q: none contains %q", got, want)
}

// TestExchanges: a turn that opens with a reply continues the exchange of
// the turn before; any other turn opens a new one.
func TestExchanges(t *testing.T) {
	d := discussionOf(nil,
		"I think the striker was brilliant.",
		"No, I think the keeper was better.",
		"I believe the coach made a mistake.",
		"Indeed, the substitution came too late.",
		"Well, but the fans were loud.",
		"The referee was fair.",
		"He kept the game calm.")
	got := exchanges(d.Turns)
	want := []int{0, 0, 1, 1, 1, 2, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("exchanges = %v, want %v", got, want)
		}
	}
}

// TestScopeTermsCompoundsAndOrdinals: a compound meets its unhyphenated
// and its split forms, an ordinal its cardinal.
func TestScopeTermsCompoundsAndOrdinals(t *testing.T) {
	a := scopeTerms("They won the penalty shoot-out after a record-breaking night, the fourth consecutive title, in the 25th minute.")
	b := scopeTerms("The shootout, record breaking, four consecutive titles, after 25 minutes.")
	for _, w := range []string{"shootout", "record break", "four consecutiv", "25 minut"} {
		if a[w] == 0 || b[w] == 0 {
			t.Errorf("term %q: %d in the first text, %d in the second", w, a[w], b[w])
		}
	}
	if scopeTerms("a 2-1 win")["2"] != 0 {
		t.Error("a score is split into its numbers")
	}
}

// TestScopeFollowsTheExchange: the reply's story is the story of the
// turn it answers, not of the turn after it.
func TestScopeFollowsTheExchange(t *testing.T) {
	d := discussionOf([]string{
		"Rosa Kettunen set a new course record in the city marathon. Kettunen said she had trained at altitude.",
		"In the cycling race, Lena Moser won the sprint stage. Moser said she felt strong on the final climb.",
	},
		"I think the course record proves it worked.",
		"Indeed, she deserves it.",
		"I believe the sprint stage on the final climb of the cycling race, won by Moser, was the best.")
	got := opinionTexts(d)
	wantOpinion(t, got, "Rosa Kettunen deserves it")
}

// TestScopeOutweighsSalience: an entity of the paragraph the turn is
// about is preferred to a more salient one of another story.
func TestScopeOutweighsSalience(t *testing.T) {
	d := discussionOf([]string{
		"Maria Lindqvist won the Harbour Open. Lindqvist said she was proud. Lindqvist thanked her fans, and Lindqvist will rest.",
		"Sara Moll won her fourth consecutive wheelchair title. Moll said she was delighted, and Moll will defend it.",
	},
		"I think winning the wheelchair title for the fourth consecutive time shows how dominant she is.")
	wantOpinion(t, opinionTexts(d), "dominant Sara Moll is")
}

// TestTurnGenderWeighsTheStory: a turn that says "he" and names nobody is
// about a story with a man in it.
func TestTurnGenderWeighsTheStory(t *testing.T) {
	g := graphOf(nil,
		"Anna Brandt won the final. Brandt said she was proud.",
		"Peter Holm lost the final. Holm said he was tired.")
	r := NewResolver(g)
	if got := r.turnGender("I think he played the final tired.", nil); got != Male {
		t.Errorf("turnGender = %v, want male", got)
	}
	if got := r.turnGender("I think he and she played well.", nil); got != GenderUnknown {
		t.Errorf("turnGender with both = %v, want unknown", got)
	}
	if got := r.turnGender("Holm said he was tired.", []*Entity{g.Lookup("Holm")}); got != GenderUnknown {
		t.Errorf("turnGender naming a man = %v, want unknown", got)
	}
}

// TestNameLettersAndNumbers: a capital letter or a small number after a
// name inside a sentence is part of it; a date is not a name.
func TestNameLettersAndNumbers(t *testing.T) {
	g := graphOf(nil,
		"Napoli went top of Serie A with a win. The Lowland League champions met the League 2 visitors on Sept. 24 in Ayr.",
		"A late goal won it.")
	for _, n := range []string{"Serie A", "League 2"} {
		if e := g.Lookup(n); e == nil || e.Name != n {
			t.Errorf("Lookup(%q) = %+v", n, e)
		}
	}
	for _, n := range []string{"Serie", "A", "Sept"} {
		if e := g.Lookup(n); e != nil {
			t.Errorf("Lookup(%q) = %q, want no entity", n, e.Name)
		}
	}
}

// TestSurnameLike: a single letter or a generational suffix is no
// surname.
func TestSurnameLike(t *testing.T) {
	for w, want := range map[string]bool{"Hug": true, "A": false, "Jr": false, "Jr.": false, "2": false, "III": false} {
		if surnameLike(w) != want {
			t.Errorf("surnameLike(%q) = %v, want %v", w, !want, want)
		}
	}
}

// TestCompetitorsAreOrganisations: names a score or a contest word joins
// are sides of a contest: without a person's evidence, organisations.
func TestCompetitorsAreOrganisations(t *testing.T) {
	g := graphOf(nil,
		"Leverkusen bounced back with a commanding 4-1 victory at Hoffenheim.",
		"Aberdeen 2-1 Airdrieonians: the visitors led early.",
		"Douglas Wagner scored in a 1-1 draw to Park Center.")
	for _, n := range []string{"Hoffenheim", "Aberdeen", "Airdrieonians"} {
		if e := g.Lookup(n); e == nil || e.Kind != KindOrganisation {
			t.Errorf("Lookup(%q) = %+v, want an organisation", n, e)
		}
	}
	if e := g.Lookup("Douglas Wagner"); e == nil || e.Kind != KindPerson {
		t.Errorf("a scorer: %+v, want a person", e)
	}
}

// TestGenderFromTitlesAndEvents: "Mr", "Ms" and the winner of a men's or
// women's event say a person's gender.
func TestGenderFromTitlesAndEvents(t *testing.T) {
	g := graphOf(nil,
		"Momade Jussab was arrested at the airport. Mr Jussab is due in court.",
		"Swiss great Marcel Hug won the men's wheelchair race, with Catherine Debrunner comfortably winning the women's race.")
	for n, want := range map[string]Gender{"Momade Jussab": Male, "Marcel Hug": Male, "Catherine Debrunner": Female} {
		if e := g.Lookup(n); e == nil || e.Gender != want {
			t.Errorf("Lookup(%q) = %+v, want gender %v", n, e, want)
		}
	}
}

// TestHolderIsNoSubject: in "Chicago outfielder Zach DeLoach hit his …"
// the pronoun is the person's, not the holder's.
func TestHolderIsNoSubject(t *testing.T) {
	g := graphOf(nil,
		"Chicago outfielder Zach DeLoach then hit his first career home run.",
		"The Tigers beat Chicago later.")
	if e := g.Lookup("Zach DeLoach"); e == nil || e.Gender != Male {
		t.Errorf("Zach DeLoach: %+v, want male", e)
	}
	if e := g.Lookup("Chicago"); e == nil || e.Kind == KindPerson {
		t.Errorf("Chicago: %+v, want no person", e)
	}
}

// TestNegatedParticiple: "Unbeaten Juventus" opens a sentence with an
// adjective, not a name; role words of school years are roles.
func TestNegatedParticiple(t *testing.T) {
	g := graphOf(nil,
		"Unbeaten Juventus were held to a draw at Empoli.",
		"Senior Abby Paloranta scored a hat trick.")
	if e := g.Lookup("Juventus"); e == nil || e.Name != "Juventus" {
		t.Errorf("Juventus: %+v", e)
	}
	if e := g.Lookup("Abby Paloranta"); e == nil || e.Name != "Abby Paloranta" {
		t.Errorf("Abby Paloranta: %+v", e)
	}
}

// TestOpponentOfPeople: "the opponent" of a person is the one a contest
// word joins to them, and naming the opponent leaves the side the more
// recent for a later "he".
func TestOpponentOfPeople(t *testing.T) {
	d := discussionOf([]string{
		"Mike Tyson, 57, will return to the ring to face Jake Paul in July. Tyson said he was ready.",
		"Tyson has trained for months, and Tyson said he feels strong.",
	},
		"I think he can easily defeat the opponent, and he will win.")
	got := opinionTexts(d)
	wantOpinion(t, got, "Mike Tyson can easily defeat Jake Paul")
	wantOpinion(t, got, "Mike Tyson will win")
}

// TestGroupMemberPronoun: a later "they" about a group of people of known
// gender is written with the member's name, never a pronoun the turn
// does not have.
func TestGroupMemberPronoun(t *testing.T) {
	d := discussionOf([]string{
		"Tom Reid and Sam Okafor scored late goals. Reid said he was delighted. Okafor said he was tired.",
	},
		"I think these two players deserve praise for their work.")
	got := opinionTexts(d)
	wantOpinion(t, got, "Tom Reid deserves praise for Tom Reid's work")
	for _, o := range got {
		if strings.Contains(o, " his ") {
			t.Errorf("opinion %q writes a pronoun the turn does not have", o)
		}
	}
}

// TestReflexiveIntensifier: a reflexive right after a noun stresses the
// noun and denotes no entity.
func TestReflexiveIntensifier(t *testing.T) {
	d := discussionOf([]string{
		"The Harbour Rovers were fined after their fans invaded the pitch. The club said they would appeal.",
	},
		"I think the charges themselves are serious enough.")
	for _, o := range opinionTexts(d) {
		if strings.Contains(o, "Rovers") {
			t.Errorf("opinion %q resolves an intensifier", o)
		}
	}
}

// TestPlacesFromUsage: a name written after "in" or a compass adjective,
// with no other evidence, is a place; "X, Y" makes X a locality, which
// "this country" never denotes; a place of another story is not "this
// area".
func TestPlacesFromUsage(t *testing.T) {
	g := graphOf(nil,
		"A woman has died following a crash in Cornwall.",
		"Residents in northeastern British Columbia were evacuated.",
		"The man was arrested by officers in Gourock, Inverclyde.")
	for _, n := range []string{"Cornwall", "British Columbia", "Gourock"} {
		if e := g.Lookup(n); e == nil || e.Kind != KindPlace {
			t.Errorf("Lookup(%q) = %+v, want a place", n, e)
		}
	}
	e := g.Lookup("Gourock")
	if _, ok := compatible(e, notPronoun, "country"); ok {
		t.Error("a locality is compatible with \"this country\"")
	}
	if _, ok := compatible(e, notPronoun, "area"); !ok {
		t.Error("a locality is not compatible with \"this area\"")
	}
	d := discussionOf([]string{
		"Officers searched two vehicles and seized the drug on the motorway.",
		"A cannabis farm was found in Redcar by Cleveland Police.",
	},
		"I think the vehicle search is an important start in combating drug crime in this country.")
	for _, o := range opinionTexts(d) {
		if strings.Contains(o, "Redcar") {
			t.Errorf("opinion %q takes a place of another story", o)
		}
	}
}

// TestTitlesAndAbbreviations: "Mayor" and "Gov." are roles, not part of
// the name.
func TestTitlesAndAbbreviations(t *testing.T) {
	g := graphOf(nil,
		"Mayor Rob Fraser said residents should leave.",
		"Minnesota Gov. Tim Walz will join a call tonight.")
	if e := g.Lookup("Rob Fraser"); e == nil || !hasRole(e, "mayor") {
		t.Errorf("Rob Fraser: %+v, want the role mayor", e)
	}
	if e := g.Lookup("Tim Walz"); e == nil || !hasRole(e, "governor") || e.RoleOf["governor"] != "Minnesota" {
		t.Errorf("Tim Walz: %+v, want governor of Minnesota", e)
	}
}

// TestAdjectiveBeforeRole: a sentence-opening adjective of a role noun
// before a name is no name ("Dissident rapper Toomaj Salehi").
func TestAdjectiveBeforeRole(t *testing.T) {
	g := graphOf(nil,
		"Dissident rapper Toomaj Salehi was sentenced. Salehi will appeal.",
		"Reigning champion Real Madrid began well.")
	for _, n := range []string{"Dissident", "Reigning"} {
		if e := g.Lookup(n); e != nil {
			t.Errorf("Lookup(%q) = %q, want no entity", n, e.Name)
		}
	}
	if e := g.Lookup("Toomaj Salehi"); e == nil || !hasRole(e, "rapper") {
		t.Errorf("Toomaj Salehi: %+v, want the role rapper", e)
	}
}

// TestResultLineSidesAreTeams: the two names of a result line are teams
// even when their words look like a person's name.
func TestResultLineSidesAreTeams(t *testing.T) {
	g := graphOf(nil,
		"Hamilton Academical 1-2 Ross County: the visitors won late.",
		"Ronan Hale replied after 25 minutes.")
	for _, n := range []string{"Hamilton Academical", "Ross County"} {
		if e := g.Lookup(n); e == nil || e.Kind != KindOrganisation {
			t.Errorf("Lookup(%q) = %+v, want an organisation", n, e)
		}
	}
}

// TestTeamAndOpponentOfThePlayer: "the team" after a player is the one
// the graph ties his role to, not merely one named beside him; the
// opponent is the other side of that team's contest, found across the
// player's name and a score.
func TestTeamAndOpponentOfThePlayer(t *testing.T) {
	d := discussionOf([]string{
		"Arizona Cardinals QB Kyler Murray was perfect in their 41-10 demolition of the Los Angeles Rams as his three-touchdown performance got a high rating.",
		"The New York Giants lost to the Washington Commanders.",
	},
		"I believe the three touchdowns he completed were the key factor in the team's victory over the opponent.")
	wantOpinion(t, opinionTexts(d), "the three touchdowns Kyler Murray completed were the key factor in Arizona Cardinals' victory over the Los Angeles Rams")
}

// TestDeedFollowsTheMention: of two people of one story, a pronoun means
// the one after whose mention the background writes what the turn says.
func TestDeedFollowsTheMention(t *testing.T) {
	d := discussionOf([]string{
		"Hamilton Academical 1-2 Ross County: a late winner settled it.",
		"Oli Shaw gave Hamilton an early lead, but County debutant Ronan Hale replied after 25 minutes.",
		"Jordan White added another three minutes later to give the visitors a third straight win.",
	},
		"I think his goal in the 25th minute laid the foundation for the win.")
	wantOpinion(t, opinionTexts(d), "Ronan Hale's goal in the 25th minute")
}

// TestThatBeforeAQuantifier: "that neither team" opens a clause; it is no
// role phrase.
func TestThatBeforeAQuantifier(t *testing.T) {
	d := discussionOf([]string{
		"Juventus were held to a 1-1 draw by Cagliari. Juventus said the team was tired.",
	},
		"It's disappointing that neither team scored from open play.")
	wantOpinion(t, opinionTexts(d), "that neither team scored")
}

// TestNegativeFigure: "a net income of -$6.0 billion" is a loss.
func TestNegativeFigure(t *testing.T) {
	f := figures("Walgreens has reported a revenue of $144.6 billion and a net income of -$6.0 billion.")
	if f["net income"] != -6e9 || f["revenue"] != 144.6e9 {
		t.Errorf("figures = %v", f)
	}
}

// TestTheyAfterPluralSubject: "they" after a plural noun subject of the
// statement is those things, no entity; a place's pronoun vote across a
// sentence that opens with a phrase goes to that sentence's person.
func TestTheyAfterPluralSubject(t *testing.T) {
	d := discussionOf([]string{
		"Police were called to Tesco Express in Liden after the robbery. Tesco Express said they had closed the store.",
	},
		"Although the armed robberies are indeed concerning, they do not reflect the overall safety situation.")
	for _, o := range opinionTexts(d) {
		if strings.Contains(o, "Tesco") {
			t.Errorf("opinion %q resolves the robberies' pronoun", o)
		}
	}
	g := graphOf(nil,
		"The flame is expected to arrive in France on May 8.",
		"France recently announced that capacity is set to be halved.",
		"In an interview Monday, French President Emmanuel Macron said a Plan B is being explored. He also spoke about his intentions.")
	if e := g.Lookup("France"); e == nil || e.Kind != KindPlace {
		t.Errorf("France: %+v, want a place", e)
	}
}

// TestNameOpeningAnOpinion: a name the turn writes inside a sentence
// keeps its capital when the opinion opens with it, even one the
// background does not name.
func TestNameOpeningAnOpinion(t *testing.T) {
	d := discussionOf([]string{"Stefanos Ntouskos was the first runner of the torch relay."},
		"Well, but I feel Bolt should have been given this role.")
	wantOpinion(t, opinionTexts(d), "thinks that Bolt should")
}

// TestGroupOfPlaces: a list of places may hold "parts of southern X", a
// place name may open a sentence with "East"; a group's list is looked
// for beyond the turn's scope when the scope names none of its size.
func TestGroupOfPlaces(t *testing.T) {
	d := discussionOf([]string{
		"A warning of heavy rain covers the East of England, and the east coast is on alert.",
		"The infrastructure of Essex, Hertfordshire, Norfolk and Suffolk was tested by the heavy rain.",
		"East Sussex, West Sussex and parts of southern Surrey would be affected, the Met Office said.",
	},
		"I think the infrastructure in these three areas is robust enough for the heavy rain.")
	got := opinionTexts(d)
	for _, w := range []string{"infrastructure in East Sussex", "infrastructure in West Sussex", "infrastructure in Surrey"} {
		wantOpinion(t, got, w)
	}
}

// TestTypedOrganisationHeads: "the government" is no court; "the court"
// is one whose name says so.
func TestTypedOrganisationHeads(t *testing.T) {
	g := graphOf(nil, "The Supreme Court overturned the verdict. The court said its ruling was final.")
	e := g.Lookup("Supreme Court")
	if e == nil {
		t.Fatal("no Supreme Court")
	}
	if _, ok := compatible(e, notPronoun, "government"); ok {
		t.Error("a court is compatible with \"the government\"")
	}
	if _, ok := compatible(e, notPronoun, "court"); !ok {
		t.Error("a court is not compatible with \"the court\"")
	}
}

// TestInitialisms: an acronym written without brackets is the one name
// its letters begin ("PSG", "Paris St-Germain"), and makes it no person;
// a name holding the acronym itself expands nothing.
func TestInitialisms(t *testing.T) {
	g := graphOf(nil,
		"Paris St-Germain were held to a 1-1 draw at Nice.",
		"Nuno Mendes equalised for PSG after the break.",
		"US Soccer said the US team would travel on Monday.")
	e := g.Lookup("PSG")
	if e == nil || e.Name != "Paris St-Germain" || e.Kind == KindPerson {
		t.Errorf("Lookup(PSG) = %+v, want Paris St-Germain, no person", e)
	}
	if e := g.Lookup("US"); e == nil || e.Name != "US" {
		t.Errorf("Lookup(US) = %+v, want US itself", e)
	}
}

// TestDeedIsTheSubjects: words after a preposition's object are no deed
// of the object ("defeat by RB Leipzig a fortnight ago with a victory":
// Leverkusen's victory).
func TestDeedIsTheSubjects(t *testing.T) {
	d := discussionOf([]string{
		"Inter drew 1-1 with Monza at home.",
		"Champions Leverkusen bounced back from defeat by RB Leipzig a fortnight ago with a commanding 4-1 victory at Hoffenheim.",
		"Brest took a shock lead against the champions.",
	},
		"I think their victory in this match has dispelled the gloom from their defeat two weeks ago.")
	wantOpinion(t, opinionTexts(d), "Leverkusen's victory")
}

// TestAppositionBeforePronoun: "as an official body, it …" is no
// expletive "it" and prefers the entity the background calls a body
// ("Governing body the FIA"); "it should make …" (a modal and a deed) is
// a reference too.
func TestAppositionBeforePronoun(t *testing.T) {
	d := discussionOf([]string{
		"Red Bull complained about the flexible wing of McLaren at the race in Baku. Red Bull said the wing bent at speed.",
		"Governing body the FIA said the wing had passed all tests. However, the FIA changed its stance after complaints.",
	},
		"I think as an official body, it is too slow to change its stance.",
		"Indeed, it should make objective judgments based on the rules.")
	got := opinionTexts(d)
	if e := BuildGraph(d).Lookup("FIA"); e == nil || !hasRole(e, "body") {
		t.Errorf("FIA = %+v, want the role body", e)
	}
	wantOpinion(t, got, "the FIA is too slow")
	wantOpinion(t, got, "the FIA should make objective judgments")
}

// TestPolityPronoun: a plural pronoun whose statement speaks of a
// country's economy denotes a country, not an organisation.
func TestPolityPronoun(t *testing.T) {
	d := discussionOf([]string{
		"Inflation in the US fell to 2.4% in September, the Bureau of Labor Statistics said.",
		"Housing costs in the US rose again, the Bureau of Labor Statistics said.",
	},
		"I think their economy is moving towards stability.")
	got := opinionTexts(d)
	wantOpinion(t, got, "the US's economy")
}

// TestRegionIsNoWholeOfRegions: "this region" is not the UK when the text
// writes "the UK regions": the UK is the whole, Northern Ireland a part.
func TestRegionIsNoWholeOfRegions(t *testing.T) {
	d := discussionOf([]string{
		"The number of people on payrolls in Northern Ireland rose by 1.5%, the largest rise of any of the UK regions.",
		"The unemployment rate was 1.9%, the lowest of the UK regions and the lowest in the UK since records began.",
	},
		"I think the quality of employment in this region needs a deeper analysis.")
	got := opinionTexts(d)
	wantOpinion(t, got, "employment in Northern Ireland")
}

// TestSheAfterTheTeam: a "She" that opens a sentence after one whose
// subject is unnamed ("The 42-year-old was drafted by the Mercury …") is
// no vote for the team written "the Mercury".
func TestSheAfterTheTeam(t *testing.T) {
	g := BuildGraph(discussionOf([]string{
		"The Phoenix Mercury fell to the Seattle Storm 89-70 on Thursday.",
		"The 42-year-old was drafted first overall by the Mercury in 2004. She is a former MVP.",
	}))
	if e := g.Lookup("Phoenix Mercury"); e == nil || e.Kind == KindPerson || e.ev.female > 0 {
		t.Fatalf("Phoenix Mercury = %+v, want an organisation and no vote for \"she\"", e)
	}
}

// TestStatesArePlaces: "United" opens the names of states as well as
// ending clubs' names: "the United States" is a place.
func TestStatesArePlaces(t *testing.T) {
	g := BuildGraph(discussionOf([]string{
		"Relations between the United States and China have deteriorated, and Manchester United lost again.",
	}))
	if e := g.Lookup("United States"); e == nil || e.Kind != KindPlace {
		t.Fatalf("United States = %+v, want a place", e)
	}
	if e := g.Lookup("Manchester United"); e == nil || e.Kind != KindOrganisation {
		t.Fatalf("Manchester United = %+v, want an organisation", e)
	}
}

// TestGroupInARelation: "the trade war between these two countries" is
// said of the two together: one statement that names both.
func TestGroupInARelation(t *testing.T) {
	d := discussionOf([]string{
		"The relations between the United States and China have deteriorated. A trade war between the two countries began in 2018.",
		"The factory in central China was shut down in 2022.",
	},
		"I think the trade war between these two countries has hurt consumers.")
	got := opinionTexts(d)
	if len(got) != 1 {
		t.Fatalf("opinions %q: want one", got)
	}
	wantOpinion(t, got, "between the United States and China has hurt")
}

// TestOtherGroup: "these two other players" is a list of that size
// without the player the discussion just named; a role noun may stand
// before a member of a list ("and junior Reese Ruska").
func TestOtherGroup(t *testing.T) {
	d := discussionOf([]string{
		"The Osseo girls' soccer team beat Park Center 7-0 on Tuesday.",
		"Senior Abby Paloranta scored a hat trick against Park Center. Sophomore Lamees Abid and junior Reese Ruska also scored in the win.",
	},
		"I think her hat trick was the key to the win over Park Center.",
		"Yes, but these two other players in this game should not be overlooked.")
	got := opinionTexts(d)
	wantOpinion(t, got, "Lamees Abid in the game between")
	wantOpinion(t, got, "Reese Ruska in the game between")
}

// TestAlignRepeatedWords: a word the turn repeats ("performance … in
// this game", twice) is aligned where its neighbours match, so the name
// written for "the other two players" stands where the turn has that
// group.
func TestAlignRepeatedWords(t *testing.T) {
	d := discussionOf([]string{
		"The Connecticut Sun beat the Indiana Fever 87-81. Alyssa Thomas finished with 12 points and 13 assists.",
		"Marina Mabrey and DeWanna Bonner also stood out for the Sun.",
	},
		"I think she was the key to the win.",
		"Yes, her performance in this game was indeed standout. Moreover, the performances of the other two players in this game are also worthy of praise.")
	g := BuildGraph(d)
	s := schemas.OpinionSentence{
		Text:      "Person2 thinks that the performances of Marina Mabrey in the game between the Connecticut Sun and the Indiana Fever are also worthy of praise.",
		Citations: []schemas.TurnCitation{{Turn: 1}},
	}
	if v := VerifyOpinion(d, g, s); v.Status != "supported" {
		t.Fatalf("verdict %+v, want supported", v)
	}
}

// "her" before a determiner is an object, not a possessive: "given her
// the window" gives the window to her.
func TestHerBeforeADeterminerIsAnObject(t *testing.T) {
	d := schemas.Discussion{ID: "her", Background: []schemas.Paragraph{
		{Index: 1, Text: "The club sacked coach Maren Holt on Sunday. She had won her first four matches."},
	}, Turns: []schemas.Turn{{Participant: "Person1", Utterance: "The board should have given her the January transfer window."}}}
	s := Summarize(d)
	got := s.Opinions[0].Sentences[0].Text
	if want := "Person1 thinks that the board should have given Maren Holt the January transfer window."; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// "it" as the object of a verb of belief is the proposition just said,
// left as written.
func TestItAfterABeliefVerbIsAProposition(t *testing.T) {
	d := schemas.Discussion{ID: "doubt", Background: []schemas.Paragraph{
		{Index: 1, Text: "Harbour City FC appointed Ivo Marsh as interim coach. The club said it would decide in May."},
	}, Turns: []schemas.Turn{
		{Participant: "Person1", Utterance: "Marsh can steady the club."},
		{Participant: "Person2", Utterance: "I doubt it."},
	}}
	s := Summarize(d)
	got := s.Opinions[1].Sentences[0].Text
	if want := "Person2 doubts it."; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The other side of a home or an away result is a team, and both ends of
// a transfer ("joined X from Y") are organisations, whatever their words.
func TestResultAndTransferFramesType(t *testing.T) {
	g := graphOf(nil,
		"Harbour City FC sacked head coach Maren Holt on Sunday, two days after a 3-0 home defeat to Westbrook Rovers.",
		"Holt joined Harbour City from Northgate Athletic in June. She won her first four matches.")
	for _, n := range []string{"Westbrook Rovers", "Northgate Athletic"} {
		if e := g.Lookup(n); e == nil || e.Kind != KindOrganisation {
			t.Errorf("Lookup(%q) = %+v, want an organisation", n, e)
		}
	}
}

// A preposition's object is not the subject a next sentence's "His"
// continues.
func TestPrepositionObjectIsNoSubject(t *testing.T) {
	g := graphOf(nil,
		"Marko Ilic is a defender.",
		"Last year a fee took the defender to Partizan. His contract ends in June.")
	if e := g.Lookup("Partizan"); e == nil || e.Kind == KindPerson || e.Gender != GenderUnknown {
		t.Errorf("Partizan = %+v, want no person", e)
	}
}

// A sentence opening with a description of a person ("The 26-year-old
// started …") has the person last named as its subject: a next "His"
// is theirs.
func TestDescribedSubjectContinuesThePerson(t *testing.T) {
	g := graphOf(nil,
		"Nikola Milenkovic joins Forest for a fee of £12m.",
		"The 26-year-old started his career at Partizan. In his seven-year stint, the club won twice.")
	if e := g.Lookup("Nikola Milenkovic"); e == nil || e.Gender != Male {
		t.Errorf("Nikola Milenkovic = %+v, want a man", e)
	}
	if e := g.Lookup("Partizan"); e == nil || e.Kind == KindPerson {
		t.Errorf("Partizan = %+v, want no person", e)
	}
}

// A name ending in "s" that opens a sentence is a name, with its plural
// verb, when the text also capitalises it inside a sentence ("Juventus
// have confirmed … his contract": his is not Juventus').
func TestOpeningPluralNameKeepsItsVerb(t *testing.T) {
	g := graphOf(nil,
		"Juventus have confirmed that midfielder Adrien Rabiot will leave the club following the end of his contract.",
		"Rabiot made 212 appearances for Juventus.")
	if e := g.Lookup("Juventus"); e == nil || e.Kind != KindOrganisation {
		t.Errorf("Juventus = %+v, want an organisation", e)
	}
}

// A plural common noun between a name and "them" is what "them" takes
// up ("had 52,000 visits, many of them …"): no vote for the name.
func TestPluralNounTakesUpThem(t *testing.T) {
	g := graphOf(nil,
		"Millbrook Town Council voted to close the Riverside Library in March.",
		"The Riverside Library opened in 1968 and had about 52,000 visits last year, many of them from schoolchildren.")
	if e := g.Lookup("Riverside Library"); e == nil || e.Plural {
		t.Errorf("Riverside Library = %+v, want singular", e)
	}
}

// A pronoun is not a name of its own clause: "they beat Juventus" is not
// Juventus beating Juventus.
func TestPronounIsNoClauseMate(t *testing.T) {
	d := discussionOf([]string{"Juventus have won five matches in a row. Juventus are top of the table."},
		"I think they beat Juventus easily.")
	got := opinionTexts(d)
	for _, g := range got {
		if strings.Contains(g, "Juventus beat Juventus") {
			t.Errorf("opinions %q bind a pronoun to its clause's own name", got)
		}
	}
	wantOpinion(t, got, "they beat Juventus")
}

// A turn meets its story through an irregular past ("came" and
// "coming"), the American "-ize" ("equalize", "equalising").
func TestScopeStemFoldsForms(t *testing.T) {
	for _, p := range [][2]string{{"came", "coming"}, {"come", "coming"}, {"equalize", "equalising"}, {"won", "winning"}} {
		if a, b := scopeStem(p[0]), scopeStem(p[1]); a != b {
			t.Errorf("scopeStem(%q) = %q, scopeStem(%q) = %q", p[0], a, p[1], b)
		}
	}
}

// A name whose own verb is followed by "its" is no person ("Real Madrid
// began its title defense").
func TestItsAfterTheVerbIsNoPerson(t *testing.T) {
	g := graphOf(nil, "Reigning champion Real Madrid began its title defense with a 3-1 win.")
	if e := g.Lookup("Real Madrid"); e == nil || e.Kind == KindPerson {
		t.Errorf("Real Madrid = %+v, want no person", e)
	}
}

// The beaten side of a win ("a 4-0 victory against Real Betis", "wins
// over X") is a team, unless the win is a person's ("his victory over
// Andrew Golota").
func TestWinOverTypesTheBeatenSide(t *testing.T) {
	g := graphOf(nil,
		"Yamal came on as a substitute during a 4-0 victory against Real Betis.",
		"Mike Tyson retired in 2005. His victory over Andrew Golota in 2000 was voided.",
		"The Atlanta Dream secured the eighth seed with a 78-67 win over the New York Liberty.")
	for _, n := range []string{"Real Betis", "New York Liberty"} {
		if e := g.Lookup(n); e == nil || e.Kind != KindOrganisation {
			t.Errorf("Lookup(%q) = %+v, want an organisation", n, e)
		}
	}
	if e := g.Lookup("Andrew Golota"); e == nil || e.Kind != KindPerson {
		t.Errorf("Andrew Golota = %+v, want a person", e)
	}
}

// A scorer is no side of a contest: "Kylie Chindavong scored on a penalty
// kick against Robbinsdale Armstrong" pairs nobody.
func TestScorerIsNoContestSide(t *testing.T) {
	g := graphOf(nil,
		"Junior Kylie Chindavong scored on a penalty kick against Robbinsdale Armstrong.",
		"Junior Reese Ruska also scored.")
	r := NewResolver(g)
	for _, l := range r.contestIn(nil) {
		if containsEntity(l.es, g.Lookup("Kylie Chindavong")) {
			t.Errorf("contest %v holds the scorer", l.es)
		}
	}
}

// A contest word does not join two names across a clause break: in "a
// shock lead against the champions when Romain del Castillo converted",
// the scorer is no side.
func TestContestStopsAtAClauseBreak(t *testing.T) {
	g := graphOf(nil,
		"Ousmane Dembele scored twice as Paris St-Germain beat Brest 3-1.",
		"Brest took a shock lead against the champions when Romain del Castillo converted from the spot.")
	if e := g.Lookup("Romain del Castillo"); e == nil || e.Kind == KindOrganisation || e.ev.competitor > 0 {
		t.Errorf("Romain del Castillo = %+v, want no contest side", e)
	}
	r := NewResolver(g)
	for _, l := range r.contestIn(nil) {
		if containsEntity(l.es, g.Lookup("Romain del Castillo")) {
			t.Errorf("contest %v holds the scorer", l.es)
		}
	}
}

// A role phrase is not a name of its own clause, but another clause of
// its statement may name it: "her time with the Sparks was outstanding,
// she led this team" is the Sparks.
func TestRolePhraseMayBeAnotherClausesName(t *testing.T) {
	d := discussionOf([]string{
		"Three-time WNBA champion Candace Parker announced her retirement on Sunday.",
		"She led the Sparks to a WNBA championship in 2016 in her 13 seasons with the franchise.",
	}, "I think her time with the Sparks was outstanding, she led this team to extraordinary achievements.")
	wantOpinion(t, opinionTexts(d), "led the Sparks to extraordinary")
}

// An interjection opening a quote is no name ("“Yeah, I talked to
// O'Neal.”").
func TestInterjectionIsNoName(t *testing.T) {
	g := graphOf(nil, "Reese talked about the help Shaquille O'Neal has given her.",
		"“Yeah, I talked to O'Neal. He congratulated me after I got drafted,” she said.")
	if e := g.Lookup("Yeah"); e != nil {
		t.Errorf("Lookup(Yeah) = %+v, want no entity", e)
	}
}

// "executive" is a person's role ("Chief executive Priya Natarajan"), so
// "the chief executive" is her.
func TestChiefExecutiveIsARole(t *testing.T) {
	d := discussionOf([]string{
		"Northwind Energy plans to build a solar farm outside the village, the company said on Monday.",
		"Chief executive Priya Natarajan said the farm would create 30 jobs.",
	}, "The chief executive promised 30 jobs.")
	wantOpinion(t, opinionTexts(d), "Priya Natarajan promised 30 jobs")
}

// A role noun before a comma and a name in apposition is the name's role
// ("The club's chairman, Victor Lund, said …").
func TestRoleBeforeAnAppositionName(t *testing.T) {
	d := discussionOf([]string{
		"Harbour City FC sacked head coach Maren Holt on Sunday.",
		"The club's chairman, Victor Lund, said in a statement that the board had lost patience.",
	}, "The chairman had to act.")
	wantOpinion(t, opinionTexts(d), "Victor Lund had to act")
}

// A place the text writes after "in" is its own entity, not an alias of
// a longer name it ends ("the Sussex Squad Nigeria", "in Nigeria").
func TestPlaceIsNoAliasOfALongerName(t *testing.T) {
	g := graphOf(nil,
		"Prince Harry and Meghan landed in Nigeria on Friday.",
		"A group of women who called themselves the Sussex Squad Nigeria surrounded Meghan.")
	if e := g.Lookup("Nigeria"); e == nil || e.Name != "Nigeria" {
		t.Errorf("Lookup(Nigeria) = %+v, want its own entity", e)
	}
}

// A reciprocal predicate holds of a group's members together: "these two
// teams are evenly matched" is written once, with the list.
func TestReciprocalGroupStatementStaysWhole(t *testing.T) {
	d := discussionOf([]string{"The Mystics defeated the Indiana Fever, 92-91, on Sunday."},
		"I think these two teams are evenly matched.")
	got := opinionTexts(d)
	wantOpinion(t, got, "the Mystics and the Indiana Fever are evenly matched")
	if len(got) != 1 {
		t.Errorf("opinions %q, want one", got)
	}
}

// A reflexive is a name of its own clause: "Holt pushed herself" is Holt.
func TestReflexiveMayBeAClauseMate(t *testing.T) {
	d := discussionOf([]string{"Maren Holt won her first four matches. She said she was proud."},
		"I think Holt pushed herself too hard.")
	wantOpinion(t, opinionTexts(d), "Maren Holt pushed Maren Holt too hard")
}
