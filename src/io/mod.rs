//! File formats: Matrix Market (text, optionally gzip) and the binary B2SR format.
