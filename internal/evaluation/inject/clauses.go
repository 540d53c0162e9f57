package inject

// Clauses returns the fabricated clauses for sentences in lang ("en" for
// English, Chinese otherwise): plausible things an official of the period
// might have done, written for this package, each specific enough (a
// place, a number, a title) that no source is likely to give it in these
// words. A fresh slice on every call; the caller may reorder it.
func Clauses(lang string) []string {
	if lang == "en" {
		return []string{
			"having spent two winters surveying the Orkney lighthouses",
			"after a voyage to Lisbon aboard a revenue cutter",
			"where he also founded a small school of navigation",
			"and later lectured on tides at the Bristol Institution",
			"having declined a commission from the Admiralty",
			"and was elected to the Royal Society of Edinburgh",
			"having first trained as a clockmaker in Chester",
			"and kept a meteorological diary for twenty-six years",
			"after a quarrel with the dock company over its accounts",
			"and translated a French treatise on canal locks",
			"having walked the length of the Cornish coast on foot",
			"where a street was later named in her honour",
			"and corresponded with the astronomer John Herschel",
			"having survived a shipwreck off the Scilly Isles",
			"and bequeathed his instruments to the town library",
			"after three years as a purser on an East Indiaman",
			"and was twice mayor of the borough",
			"having studied mathematics at Trinity College Dublin",
			"where he built the first tide gauge on the Bristol Channel",
			"and published a pamphlet against the corn laws",
		}
	}
	return []string{
		"尝游历岭南诸郡",
		"少从乡先生受《春秋》于白鹿洞",
		"尝捐俸三百金修葺县学",
		"家居时筑书院于城南凤山",
		"尝奉命巡视蓟辽边墙",
		"雅善鼓琴",
		"工于篆隶而不轻为人书",
		"尝充册封琉球副使",
		"尝督运漕粮四十万石至通州",
		"尝请于各府复设社仓以备凶年",
		"尝疏浚城西旧渠溉田千顷",
		"晚年尤好《楞严经》",
		"尝著《海防图说》二卷",
		"与同年诸生结湖上诗社",
		"尝行边至宣府而还",
		"尝请减苏杭织造岁额之半",
		"性嗜酒而未尝废公事",
		"尝为乡人辨冤狱十余事",
		"尝受诏校理文渊阁图籍",
		"尝以母病告归凡三年",
		"尝监修显陵享殿",
		"尝主考浙江乡试得士百人",
		"尝治水于淮扬间凡五年",
		"尝请开海禁以通番舶",
		"好蓄古砚至百余方",
		"尝平定黔中苗寨之乱",
		"尝于任所设义学以教贫家子弟",
		"尝赈陕西饥民数万口",
		"少时家贫而力学不倦",
		"尝督修黄河北岸堤防三百里",
		"尝出知琼州府三年",
		"善画山水而秘不示人",
		"尝与倭寇战于舟山海上",
		"尝奏定驿递夫马之数",
		"尝刻其师遗集十卷行于世",
		"尝筑堡七座于延绥塞外",
	}
}
