package io.ratelimit.core.identity;

import java.text.Normalizer;
import java.util.Locale;

/**
 * How submitted account names are made comparable before they key a bucket. Two spellings
 * that the application treats as one account must share a bucket, or each spelling is a
 * fresh budget of guesses at the same password; spellings the application tells apart may
 * share one, which only makes the limit stricter. Choose the first that merges at least
 * what the application's own comparison merges.
 */
public enum IdentifierNormalization {

	/**
	 * As sent, for applications that compare account names exactly (case-sensitive
	 * usernames, opaque account ids).
	 */
	NONE {
		@Override
		String normalize(String raw) {
			return raw;
		}
	},

	/**
	 * Trimmed and lower-cased (ROOT locale): for applications that compare names
	 * case-insensitively, as most do with email addresses. The default.
	 */
	LOWER_CASE {
		@Override
		String normalize(String raw) {
			return raw.strip().toLowerCase(Locale.ROOT);
		}
	},

	/**
	 * Trimmed, NFKC-normalized and case-folded: for applications that compare names as
	 * Unicode identifiers do (RFC 8265's usernames) or whose database collation ignores
	 * width and compatibility forms, so that a full-width {@code ａｌｉｃｅ}, a ligature or
	 * {@code ALICE} are all {@code alice}. Case folding is approximated by upper-casing
	 * then lower-casing, which also folds {@code ß} to {@code ss} and the final sigma.
	 */
	NFKC_CASEFOLD {
		@Override
		String normalize(String raw) {
			String compatible = Normalizer.normalize(raw, Normalizer.Form.NFKC);
			String folded = compatible.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
			return Normalizer.normalize(folded, Normalizer.Form.NFKC).strip();
		}
	};

	/**
	 * Returns the comparable form of a submitted name.
	 * @param raw the name as submitted, not blank
	 * @return its normalized form, possibly blank
	 */
	abstract String normalize(String raw);

}
