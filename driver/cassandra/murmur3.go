package cassandra

import "encoding/binary"

// murmur3 is the token Cassandra's Murmur3Partitioner gives a partition
// key: the first half of MurmurHash3 x64_128 (seed 0), with Cassandra's
// quirk that the tail bytes are taken as signed (sign-extended) bytes.
// gocql has the same function, but in an internal package.
func murmur3(data []byte) int64 {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	var h1, h2 uint64
	n := len(data) / 16
	for i := range n {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
		h1 ^= rotl(k1*c1, 31) * c2
		h1 = (rotl(h1, 27)+h2)*5 + 0x52dce729
		h2 ^= rotl(k2*c2, 33) * c1
		h2 = (rotl(h2, 31)+h1)*5 + 0x38495ab5
	}
	tail := data[n*16:]
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 0; i-- {
		b := uint64(int64(int8(tail[i]))) // signed, as Cassandra's
		if i >= 8 {
			k2 ^= b << (8 * (i - 8))
		} else {
			k1 ^= b << (8 * i)
		}
	}
	if len(tail) > 8 {
		h2 ^= rotl(k2*c2, 33) * c1
	}
	if len(tail) > 0 {
		h1 ^= rotl(k1*c1, 31) * c2
	}
	h1 ^= uint64(len(data))
	h2 ^= uint64(len(data))
	h1 += h2
	h2 += h1
	h1, h2 = fmix(h1), fmix(h2)
	return int64(h1 + h2)
}

func rotl(x uint64, r uint) uint64 { return x<<r | x>>(64-r) }

func fmix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	return k ^ k>>33
}
