package chunker_test

// Hand-made volumes in the manner of the History of Ming. The people, their
// names and lives are invented for these tests.

// volListed has a listing with relatives in parentheses, a relative written
// by the given name alone, an unlisted person with the full formula, a
// "Name者" entry, an entry that starts inside a line (a lost paragraph
// break), a continuation paragraph that opens with a given name, and a
// closing appraisal.
const volListed = `林思远(弟思道)许德明韩正孙彦周通
林思远，字子久，莆田人。少孤，事母至孝。举永乐十年进士，授户部主事。
思远居官清慎，未尝以私干人。宣德初，擢郎中，卒于官。
思道，字子行，思远弟也。亦以文学知名，官至知府。
许德明，吴江人。初为县学训导，以荐擢御史。尝劾权贵，直声动朝野。
陈安礼，字叔和，长乐人。与德明同里，亦以清节称。
韩正，字守中，泰和人。以乡举知南昌县。正为政廉平，民甚德之。卒于官。孙彦，字伯英，上元人。举进士，授编修。
周通者，吴县人也。以孝闻，终身不仕。
赞曰：思远、德明，皆以清节自持，其后先相望，盛矣。
`

// volOpen has no listing: two biographies, a son's paragraph and a
// person the text brings in with 又.
const volOpen = `沈文，字仲章，嘉兴人。少有志节，举进士，授行人。
文为人刚直，不避权贵。
子琏，字孟璞，以荫入官，有父风。
杨礼，江阴人。起家诸生，历知县，有善政。迁知府，劝农桑，兴学校，岁饥发廪以赈，全活甚众。擢按察副使，治狱平恕，多所平反。改布政使，清介自持，属吏惮之。以忧归，起复，拜右副都御史，巡抚其地。疏论边备十事，皆见施行。致仕归，家居二十年，闭门著书，四方学者多从之游。所著有文集二十卷、奏议十卷行于世。卒年七十，赠工部尚书，谥恭简。
又董清，不知何许人，亦以清操闻。
`

// volSubEntries has an entry with sub-entries: a son introduced with a
// kinship word, a son written by his given name alone whose sub-entry
// opens with "举人", an attached person of another surname named in the
// listing's parentheses, an unlisted person introduced with 有, and a
// paragraph on a topic that opens like an entry ("X者，…"); then an entry
// of a compound surname with a brother's sub-entry.
const volSubEntries = `周文渊(子琮琰高明)欧阳德(弟旭)
周文渊，字伯深，临川人。举进士，授御史。以直言闻，累官右副都御史。
子琮，字季玉，以荫入官。历知府，有惠政。
琰，举人。历官广西参议。
高明，字子晦，文渊门人也。亦举进士，授知县。
有吴敬者，歙县人。以布衣上书言事，不报。
盐法者，国之大计也。文渊尝论之甚详。
欧阳德，字崇一，泰和人。举进士，授编修。
旭，字崇光，德弟也。以举人授教谕。
赞曰：文渊、德，皆以清节自持。
`

// volPrinces is a volume of princes: the listing writes fief, 王 and given
// name (or the fief alone), the entries add the posthumous epithet; one
// entry begins inside a line; a successor's paragraph continues the entry;
// a prince of a junior line named in the listing has a sub-entry.
const volPrinces = `◎诸王
○高宗诸子
云王柏(石泉王瑞烨)岚王韩王松
云康王柏，高宗第二子。永乐二年封。十年就藩大同。好学，礼贤下士。二十年薨。
子靖王瑞燧嗣，宣德三年薨。
石泉王瑞烨，康王第三子。以孝闻，赐敕奖之。岚悼王，高宗第四子也。幼殇。
韩王松，高宗第五子。永乐五年封，未就藩，薨。
`
