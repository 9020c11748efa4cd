package timeseries

import "math/rand/v2"

// alpha is the character set of YCSB's IncrementingPrintableStringGenerator
// with its default set (printable basic alpha ASCII): A–Z then a–z.
const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// incName returns the i-th string of length n that YCSB's
// IncrementingPrintableStringGenerator yields: i in base 52 over alpha,
// rightmost character fastest, wrapping after 52^n strings as YCSB's does.
func incName(i int64, n int) []byte {
	b := make([]byte, n)
	for j := n - 1; j >= 0; j-- {
		b[j] = alpha[i%int64(len(alpha))]
		i /= int64(len(alpha))
	}
	return b
}

// incNames returns the first count strings of length n.
func incNames(count, n int) [][]byte {
	out := make([][]byte, count)
	for i := range out {
		out[i] = incName(int64(i), n)
	}
	return out
}

// shuffled permutes names with a fixed seed: YCSB shuffles with its
// thread-local random; dbrig keeps one permutation so a data set loaded by
// one process is the one another queries.
func shuffled(names [][]byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x7473))
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
}
