package driver_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/bbolt"
	_ "github.com/fairbench/fairbench/internal/driver/pebble"
	_ "github.com/fairbench/fairbench/internal/driver/sqlite"
)

// What an embedded driver's Offers declares (for validate) is what its
// sessions implement (what workloads assert at run time), family by family.
func TestEmbeddedDriversOfferWhatTheirSessionsSpeak(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{"sqlite:" + filepath.Join(t.TempDir(), "x.db"), "bbolt:" + filepath.Join(t.TempDir(), "x.bolt"),
		"pebble:" + filepath.Join(t.TempDir(), "x.pebble")} {
		offers, ok := driver.OffersFor(url)
		if !ok {
			t.Fatalf("%s: the driver declares no families", url)
		}
		d, err := driver.ForURL(url)
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.Open(ctx, driver.Target{Name: "t", URL: url}, driver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for f, speaks := range map[driver.Family]bool{
			driver.FamilySQL:       is[driver.SQL](s),
			driver.FamilyKV:        is[driver.KV](s),
			driver.FamilyDocument:  is[driver.Document](s),
			driver.FamilySearch:    is[driver.Search](s),
			driver.FamilyAnalytics: is[driver.Analytics](s),
		} {
			if speaks != slices.Contains(offers, f) {
				t.Errorf("%s: the session speaks %s: %v, the driver offers %v", url, f, speaks, offers)
			}
		}
		s.Close(ctx)
		c.Close(ctx)
	}
}

func is[T any](c driver.Conn) bool {
	_, ok := c.(T)
	return ok
}
