//! Names in the decision layer's vocabulary: of intents (`go_to`, a game's
//! own `patrol`) and of regions (`top_left`, a game's own `reef`).
//!
//! A name is short, lower-case and `snake_case`, as a model writes it in a
//! JSON answer, and it is `Copy`, so an intent that names a region stays a
//! plain value (cached, compared, sent in messages).

use core::fmt;

/// A word of the vocabulary: 1 to [`Name::MAX`] bytes of `a`–`z`, `0`–`9`
/// and `_`, starting with a letter.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    len: u8,
    bytes: [u8; Name::MAX],
}

/// Why a text is not a [`Name`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameError(String);

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NameError {}

impl Name {
    /// The longest name, in bytes.
    pub const MAX: usize = 23;

    /// `text` as a name, if it is one.
    pub fn new(text: &str) -> Result<Self, NameError> {
        Self::parse(text).ok_or_else(|| {
            let shown: String = text.chars().take(40).collect();
            NameError(format!(
                "{shown:?} is not a name: 1 to {} characters of a-z, 0-9 and _, starting with a letter",
                Self::MAX
            ))
        })
    }

    /// `text` as a name, at compile time (a text that is not one does not
    /// compile).
    pub const fn of(text: &'static str) -> Self {
        match Self::parse(text) {
            Some(name) => name,
            None => panic!("not a name: 1 to 23 characters of a-z, 0-9 and _, starting with a letter"),
        }
    }

    const fn parse(text: &str) -> Option<Self> {
        let t = text.as_bytes();
        if t.is_empty() || t.len() > Self::MAX || !t[0].is_ascii_lowercase() {
            return None;
        }
        let mut bytes = [0u8; Self::MAX];
        let mut i = 0;
        while i < t.len() {
            let b = t[i];
            if !(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
                return None;
            }
            bytes[i] = b;
            i += 1;
        }
        Some(Self { len: t.len() as u8, bytes })
    }

    /// The name's text.
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// Written in words: `top_left` as "top left".
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, word) in self.as_str().split('_').enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            f.write_str(word)?;
        }
        Ok(())
    }
}

impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Name::new(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_snake_case_words() {
        for good in ["go_to", "a", "reef2", "top_left_front", "abcdefghijklmnopqrstuvw"] {
            assert_eq!(Name::new(good).unwrap().as_str(), good);
        }
        for bad in ["", "Top", "2nd", "_x", "go-to", "go to", "abcdefghijklmnopqrstuvwx", "é", "x\0"] {
            let e = Name::new(bad).unwrap_err();
            assert!(e.to_string().contains("is not a name"), "{bad:?}: {e}");
        }
        assert_eq!(Name::of("top_left").to_string(), "top left");
        assert_eq!(format!("{:?}", Name::of("reef")), "\"reef\"");
        let read: Name = serde_json::from_str("\"bottom\"").unwrap();
        assert_eq!(read, Name::of("bottom"));
        assert!(serde_json::from_str::<Name>("\"Bottom!\"").unwrap_err().to_string().contains("not a name"));
        assert_eq!(serde_json::to_string(&Name::of("rest")).unwrap(), "\"rest\"");
    }
}
