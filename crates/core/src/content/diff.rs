//! A unified diff of two texts: a canonical `file_change` entry carries a diff, and an agent
//! that sends the old and new texts (ACP's `{type: diff, oldText, newText}`, Claude's
//! `old_string`/`new_string` edits) gets the same diff whichever it is.

/// Above this many line pairs the lines are not matched (the cost grows with their product):
/// the diff removes every old line and adds every new one, still a valid diff.
const MATCHED_PAIRS: usize = 1 << 22;

/// `old` to `new` as one unified diff hunk over the whole text (no file header: the entry
/// names the path), every line a context (` `), removed (`-`) or added (`+`) line.
pub fn unified(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let mut diff = format!("@@ -{} +{} @@\n", range(old.len()), range(new.len()));
    for (mark, line) in lines(&old, &new) {
        diff.push(mark);
        diff.push_str(line);
        diff.push('\n');
    }
    diff
}

/// A hunk range: `start,count`, the start 0 for an empty side.
fn range(count: usize) -> String {
    match count {
        0 => "0,0".to_owned(),
        1 => "1".to_owned(),
        count => format!("1,{count}"),
    }
}

/// The lines of the diff in order, by a longest common subsequence of the two sides.
fn lines<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<(char, &'a str)> {
    if old.len().saturating_mul(new.len()) > MATCHED_PAIRS {
        let removed = old.iter().map(|line| ('-', *line));
        return removed.chain(new.iter().map(|line| ('+', *line))).collect();
    }
    // common[i][j]: the longest common subsequence of old[i..] and new[j..].
    let width = new.len() + 1;
    let mut common = vec![0usize; (old.len() + 1) * width];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i * width + j] = if old[i] == new[j] {
                common[(i + 1) * width + j + 1] + 1
            } else {
                common[(i + 1) * width + j].max(common[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(old.len() + new.len());
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            out.push((' ', old[i]));
            i += 1;
            j += 1;
        } else if i < old.len() && (j == new.len() || common[(i + 1) * width + j] >= common[i * width + j + 1]) {
            out.push(('-', old[i]));
            i += 1;
        } else {
            out.push(('+', new[j]));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_removed_and_added_between_its_context() {
        assert_eq!(
            unified("alpha\nbeta\n", "omega\nbeta\n"),
            "@@ -1,2 +1,2 @@\n-alpha\n+omega\n beta\n"
        );
    }

    #[test]
    fn an_empty_side_starts_at_zero() {
        assert_eq!(unified("", "new\n"), "@@ -0,0 +1 @@\n+new\n");
        assert_eq!(unified("a\nb", ""), "@@ -1,2 +0,0 @@\n-a\n-b\n");
    }
}
