package era_test

import (
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

func TestFindGregorian(t *testing.T) {
	type y = era.Year
	tests := []struct {
		name string
		text string
		want []era.Year
	}{
		{"full-width parentheses with 年", "万历十一年（1583年）举进士", []y{{Value: 1583, Text: "1583年", Start: 6, End: 11}}},
		{"ASCII parentheses", "万历十一年(1583)举进士", []y{{Value: 1583, Text: "1583", Start: 6, End: 10}}},
		{"full-width parentheses", "（1583）", []y{{Value: 1583, Text: "1583", Start: 1, End: 5}}},
		{"four digits and 年", "1583年，叶向高举进士", []y{{Value: 1583, Text: "1583年", Start: 0, End: 5}}},
		{"公元", "公元1583年", []y{{Value: 1583, Text: "1583年", Start: 2, End: 7}}},
		{"公元前", "公元前140年", []y{{Value: -140, Text: "140年", Start: 3, End: 7}}},
		{"three digits in parentheses", "贞观元年（627年）", []y{{Value: 627, Text: "627年", Start: 5, End: 9}}},
		{"a life in parentheses", "叶向高（1559—1627）", []y{
			{Value: 1559, Text: "1559", Start: 4, End: 8},
			{Value: 1627, Text: "1627", Start: 9, End: 13}}},
		{"a life with 年", "（1559年－1627年）", []y{
			{Value: 1559, Text: "1559年", Start: 1, End: 6},
			{Value: 1627, Text: "1627年", Start: 7, End: 12}}},
		{"full-width digits", "１５８３年", []y{{Value: 1583, Text: "１５８３年", Start: 0, End: 5}}},
		{"English in", "He passed the metropolitan examination in 1583.", []y{{Value: 1583, Text: "1583", Start: 42, End: 46}}},
		{"English In", "In 1583 he passed.", []y{{Value: 1583, Text: "1583", Start: 3, End: 7}}},
		{"English in AD", "in AD 1583", []y{{Value: 1583, Text: "1583", Start: 6, End: 10}}},
		{"English in the year", "in the year 1583", []y{{Value: 1583, Text: "1583", Start: 12, End: 16}}},
		{"three-digit English", "in 627 the era changed", []y{{Value: 627, Text: "627", Start: 3, End: 6}}},
		{"number of years", "在位48年", nil},
		{"count in parentheses", "（共12人）", nil},
		{"bare number", "1583 people", nil},
		{"word before in", "within 1583", nil},
		{"five digits", "12345年", nil},
		{"decimal", "in 1.583", nil},
		{"page in parentheses", "(p. 1583)", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := era.FindGregorian(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("FindGregorian(%q)\n got %+v\nwant %+v", tt.text, got, tt.want)
			}
		})
	}
}
