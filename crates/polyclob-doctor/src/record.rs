//! `--record DIR`: every REST body and WebSocket frame the doctor saw, in a layout a test can
//! replay offline (README, "Recording layout"):
//!
//! - `DIR/rest/NNNN.json`: one response body, as received;
//! - `DIR/rest/index.tsv`: `NNNN <TAB> what <TAB> status <TAB> path?query`, one line per body;
//! - `DIR/ws/<channel>.txt` (`market`, `polybolt`, `rtds`): one frame per line, as received
//!   (frames are single-line JSON).
//!
//! [`replay`](crate::replay) decodes it all again.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::Report;

/// Writes the recording; does nothing without a directory.
#[derive(Debug)]
pub(crate) struct Recorder {
    dir: Option<PathBuf>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    next: u32,
    error: Option<String>,
    index: Option<File>,
}

impl Recorder {
    pub(crate) fn new(dir: Option<&Path>) -> io::Result<Self> {
        let mut state = State::default();
        if let Some(d) = dir {
            fs::create_dir_all(d.join("rest"))?;
            fs::create_dir_all(d.join("ws"))?;
            state.index = Some(File::create(d.join("rest").join("index.tsv"))?);
        }
        Ok(Self {
            dir: dir.map(Path::to_path_buf),
            state: Mutex::new(state),
        })
    }

    fn with(&self, f: impl FnOnce(&Path, &mut State) -> io::Result<()>) {
        let Some(dir) = &self.dir else { return };
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.error.is_none() {
            if let Err(e) = f(dir, &mut st) {
                st.error = Some(e.to_string());
            }
        }
    }

    /// One REST body.
    pub(crate) fn rest(&self, what: &str, status: u16, path_and_query: &str, body: &[u8]) {
        self.with(|dir, st| {
            st.next += 1;
            let n = st.next;
            fs::write(dir.join("rest").join(format!("{n:04}.json")), body)?;
            if let Some(index) = &mut st.index {
                writeln!(index, "{n:04}\t{what}\t{status}\t{path_and_query}")?;
            }
            Ok(())
        });
    }

    /// One WebSocket frame of `channel`.
    pub(crate) fn frame(&self, channel: &str, text: &str) {
        self.with(|dir, _| {
            let mut f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join("ws").join(format!("{channel}.txt")))?;
            // Frames are single-line JSON; a newline inside one would split it.
            writeln!(f, "{}", text.replace('\n', " "))
        });
    }

    /// Reports the recording's outcome.
    pub(crate) fn finish(&self, report: &mut Report) {
        let Some(dir) = &self.dir else { return };
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match &st.error {
            Some(e) => report.fail("record", format!("{}: {e}", dir.display())),
            None => report.pass(
                "record",
                format!(
                    "{} REST bodies and the frames in {}",
                    st.next,
                    dir.display()
                ),
            ),
        }
    }
}
