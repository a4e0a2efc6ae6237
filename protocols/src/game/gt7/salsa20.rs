//! Salsa20/20 (Bernstein, "Salsa20 specification", 2005) with a 256-bit key and a 64-bit
//! nonce: the stream cipher GT7 encrypts its telemetry with. Written here rather than taken
//! as a dependency because it is forty lines; checked against the eSTREAM test vectors.
//! Encryption and decryption are the same XOR with the keystream. No allocation.

/// "expand 32-byte k" as four little-endian words.
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The Salsa20 quarter-round on words `a, b, c, d` of `x`.
fn quarter_round(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[b] ^= x[a].wrapping_add(x[d]).rotate_left(7);
    x[c] ^= x[b].wrapping_add(x[a]).rotate_left(9);
    x[d] ^= x[c].wrapping_add(x[b]).rotate_left(13);
    x[a] ^= x[d].wrapping_add(x[c]).rotate_left(18);
}

fn word(bytes: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([
        bytes[4 * i],
        bytes[4 * i + 1],
        bytes[4 * i + 2],
        bytes[4 * i + 3],
    ])
}

/// Keystream block number `counter` for `key` and `nonce`.
fn block(key: &[u8; 32], nonce: &[u8; 8], counter: u64) -> [u8; 64] {
    let n = |i: usize| {
        u32::from_le_bytes([
            nonce[4 * i],
            nonce[4 * i + 1],
            nonce[4 * i + 2],
            nonce[4 * i + 3],
        ])
    };
    let input: [u32; 16] = [
        SIGMA[0],
        word(key, 0),
        word(key, 1),
        word(key, 2),
        word(key, 3),
        SIGMA[1],
        n(0),
        n(1),
        counter as u32,
        (counter >> 32) as u32,
        SIGMA[2],
        word(key, 4),
        word(key, 5),
        word(key, 6),
        word(key, 7),
        SIGMA[3],
    ];
    let mut x = input;
    for _ in 0..10 {
        // Column round, then row round.
        quarter_round(&mut x, 0, 4, 8, 12);
        quarter_round(&mut x, 5, 9, 13, 1);
        quarter_round(&mut x, 10, 14, 2, 6);
        quarter_round(&mut x, 15, 3, 7, 11);
        quarter_round(&mut x, 0, 1, 2, 3);
        quarter_round(&mut x, 5, 6, 7, 4);
        quarter_round(&mut x, 10, 11, 8, 9);
        quarter_round(&mut x, 15, 12, 13, 14);
    }
    let mut out = [0u8; 64];
    for (i, chunk) in out.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&x[i].wrapping_add(input[i]).to_le_bytes());
    }
    out
}

/// XORs `data` in place with the keystream of `key` and `nonce` from its start.
pub fn apply_keystream(key: &[u8; 32], nonce: &[u8; 8], data: &mut [u8]) {
    for (counter, chunk) in data.chunks_mut(64).enumerate() {
        let stream = block(key, nonce, counter as u64);
        for (byte, k) in chunk.iter_mut().zip(stream) {
            *byte ^= k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn quarter_round_matches_the_specification() {
        // Specification section 3: quarterround(1, 0, 0, 0).
        let mut x = [0u32; 16];
        x[0] = 1;
        quarter_round(&mut x, 0, 1, 2, 3);
        assert_eq!(
            &x[..4],
            &[0x0800_8145, 0x0000_0080, 0x0001_0200, 0x2050_0000]
        );
    }

    #[test]
    fn estream_set1_vector0_blocks_0_and_3() {
        // eSTREAM Salsa20/20, 256-bit key, set 1 vector 0: key 80 00 .. 00, IV 0.
        let mut key = [0u8; 32];
        key[0] = 0x80;
        let mut stream = [0u8; 256];
        apply_keystream(&key, &[0; 8], &mut stream);
        assert_eq!(
            stream[..64].to_vec(),
            hex(concat!(
                "E3BE8FDD8BECA2E3EA8EF9475B29A6E7003951E1097A5C38D23B7A5FAD9F6844",
                "B22C97559E2723C7CBBD3FE4FC8D9A0744652A83E72A9C461876AF4D7EF1A117"
            ))
        );
        assert_eq!(
            stream[192..].to_vec(),
            hex(concat!(
                "57BE81F47B17D9AE7C4FF15429A73E10ACF250ED3A90A93C711308A74C6216A9",
                "ED84CD126DA7F28E8ABF8BB63517E1CA98E712F4FB2E1A6AED9FDC73291FAA17"
            ))
        );
    }

    #[test]
    fn applying_twice_gives_the_plaintext_back() {
        let key = [7u8; 32];
        let nonce = [1, 2, 3, 4, 5, 6, 7, 8];
        let plain: Vec<u8> = (0..150u8).collect();
        let mut data = plain.clone();
        apply_keystream(&key, &nonce, &mut data);
        assert_ne!(data, plain);
        apply_keystream(&key, &nonce, &mut data);
        assert_eq!(data, plain);
    }
}
