package era_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// TestMingshiDates reads the era dates of the Mingshi biographies: nearly
// all of them must resolve to a Gregorian year, and, the Mingshi being the
// history of the Ming, nearly all to Ming, Southern Ming or early Qing eras.
func TestMingshiDates(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no volumes in %s: %v", dir, err)
	}
	tab := era.Default()
	var dated, approx, unresolved, ming int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		for _, d := range tab.Find(string(b)) {
			switch d.Dynasty {
			case "明", "南明", "清":
				ming++
			}
			if d.Approx != "" {
				approx++
				continue
			}
			dated++
			if d.Gregorian == 0 {
				unresolved++
			}
		}
	}
	total := dated + approx
	t.Logf("%d volumes: %d era dates (%d with a year, %d approximate), %d beyond their era, %d (%.1f%%) of Ming, Southern Ming or Qing",
		len(files), total, dated, approx, unresolved, ming, 100*float64(ming)/float64(total))
	if total < 1000 {
		t.Fatalf("only %d era dates found", total)
	}
	if float64(unresolved) > 0.005*float64(dated) {
		t.Errorf("%d of %d dated era dates have no Gregorian year", unresolved, dated)
	}
	if float64(ming) < 0.95*float64(total) {
		t.Errorf("only %d of %d era dates are of Ming, Southern Ming or Qing", ming, total)
	}
}
