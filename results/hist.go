package results

import (
	"encoding/json"
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
)

// encodeHist returns h in HdrHistogram's V2 compressed encoding
// (measure.EncodeHistogram); an empty or nil histogram is stored as NULL.
func encodeHist(h *hdr.Histogram) ([]byte, error) {
	if h == nil || h.TotalCount() == 0 {
		return nil, nil
	}
	return measure.EncodeHistogram(h)
}

// DecodeHist decodes a histogram column (hist, svc_hist); NULL gives nil.
func DecodeHist(raw []byte) (*hdr.Histogram, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	return measure.DecodeHistogram(raw)
}

// encodeClasses stores errors by class as a small JSON object with sorted
// keys (encoding/json sorts map keys), '{}' when there are none.
func encodeClasses(m map[string]int64) string {
	clean := make(map[string]int64, len(m))
	for k, v := range m {
		if v != 0 {
			clean[k] = v
		}
	}
	b, _ := json.Marshal(clean) // a map[string]int64 always marshals
	return string(b)
}

func decodeClasses(s string) (map[string]int64, error) {
	m := map[string]int64{}
	if s == "" {
		return m, nil
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("stored error classes %q: %w", s, err)
	}
	return m, nil
}
