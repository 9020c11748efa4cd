package measure

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// LogWriter writes intervals as an HdrHistogram interval log (format 1.3),
// one tagged line per op per interval (tag = op name, response time), which
// HdrHistogram's HistogramLogProcessor and hdrhistogram-go's log reader read.
// Values are microseconds: run HistogramLogProcessor with
// -outputValueUnitRatio 1000 to see milliseconds.
//
// The headers come from hdrhistogram-go and the histograms from
// EncodeHistogram (the log holds their base64). The interval lines are
// formatted here because v1.1.2's OutputIntervalHistogram writes the end
// timestamp (in ms) where the format has the interval length in seconds, and
// OutputBaseTime spells the "#[BaseTime:" marker with a lower-case t that
// readers do not recognise.
type LogWriter struct {
	w    io.Writer
	lw   *hdr.HistogramLogWriter
	base time.Time
}

// NewLogWriter writes the log header to w; interval timestamps are written
// relative to base (the run's start).
func NewLogWriter(w io.Writer, base time.Time, comment string) (*LogWriter, error) {
	l := &LogWriter{w: w, lw: hdr.NewHistogramLogWriter(w), base: base}
	if comment != "" {
		if err := l.lw.OutputComment(strings.ReplaceAll(comment, "\n", " ")); err != nil {
			return nil, fmt.Errorf("hdr log: %w", err)
		}
	}
	if err := l.lw.OutputLogFormatVersion(); err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	sec := float64(base.UnixMilli()) / 1000
	if _, err := fmt.Fprintf(w, "#[StartTime: %.3f (seconds since epoch), %s]\n#[BaseTime: %.3f (seconds since epoch)]\n",
		sec, base.UTC().Format(time.RFC3339Nano), sec); err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	if err := l.lw.OutputComment("[values are response times in microseconds, tagged by operation]"); err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	if err := l.lw.OutputLegend(); err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	return l, nil
}

// WriteInterval writes one line per op of iv (its response-time histogram).
func (l *LogWriter) WriteInterval(iv Interval) error {
	start := iv.Start.Sub(l.base).Seconds()
	length := iv.End.Sub(iv.Start).Seconds()
	for _, o := range iv.Ops {
		if o.Response == nil {
			continue
		}
		raw, err := EncodeHistogram(o.Response)
		if err != nil {
			return fmt.Errorf("hdr log: %s: %w", o.Op, err)
		}
		// Max is written in milliseconds, as HdrHistogram does for its
		// default nanosecond values scaled by 1e6.
		_, err = fmt.Fprintf(l.w, "Tag=%s,%.3f,%.3f,%.3f,%s\n",
			logTag(o.Op), start, length, float64(o.Response.Max())/1000, base64.StdEncoding.EncodeToString(raw))
		if err != nil {
			return fmt.Errorf("hdr log: %w", err)
		}
	}
	return nil
}

// logTag makes an op name a valid tag: no commas, spaces or line breaks.
func logTag(op string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ',', ' ', '\t', '\r', '\n':
			return '_'
		}
		return r
	}, op)
}
