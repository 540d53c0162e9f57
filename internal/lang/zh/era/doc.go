// Package era converts between Chinese regnal eras (年号) and Gregorian
// years.
//
// The era table is written by the project and embedded (eras.tsv): one line
// per era with its dynasty, emperor, simplified name, the Gregorian year of
// its first year (元年) and the last year it was counted. It covers the
// eras from Western Han to Qing: Han and Xin, the Three Kingdoms, Jin, the
// Northern and Southern dynasties, Sui, Tang with Wu Zetian's Zhou, the Five
// Dynasties, Liao, Northern and Southern Song, Western Xia, Jin, Yuan and
// the Northern Yuan, Ming, the Southern Ming courts and Qing (from 天命).
//
// A Table answers three questions: which eras carry a name (Lookup,
// Resolve), which Gregorian year an era date names (Gregorian), and which
// era dates name a Gregorian year (FromGregorian). Find scans a text for era
// dates such as 万历十一年 or 洪武初; FindGregorian scans for Gregorian years
// such as （1583年） or "in 1583". Traditional characters are accepted
// wherever a name is read (萬曆 is 万历); names are returned simplified.
//
// Era names are not unique: 贞观 is both a Tang and a Western Xia era. An
// ambiguous name resolves in a preference order: Ming (明), then Qing (清),
// then the latest dynasty (the era with the latest first year), unless
// WithPrefer names other dynasties. Among the eras of a name, the first in
// that order whose length admits the year number wins, so 贞观二十年 is the
// Tang year even though the Western Xia era is later.
//
// Years before the common era are negative with no year zero (-140 is
// 140 BCE). A Table is immutable and safe for concurrent use.
package era
