//! The page's HTTP server (`murmuration web`): GET and HEAD of a fixed set of
//! files, each connection on a thread of its own and closed after its one
//! answer. Hand-written over `std::net` instead of a crate: tiny_http left
//! some of a browser's requests on kept-alive connections unanswered (the
//! page's scripts, now and then: its load never ended), and a page of a few
//! static files needs nothing a larger server offers.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// One answer: status line, content type, body and its content coding.
pub struct Answer<'a> {
    /// `200 OK`, `404 Not Found`, …
    pub status: &'static str,
    /// The `Content-Type`.
    pub mime: &'static str,
    /// The body as sent.
    pub body: &'a [u8],
    /// The `Content-Encoding` of `body`, if any.
    pub encoding: Option<&'static str>,
}

/// A request as far as the page's server reads it.
pub struct Request {
    /// `GET`, `HEAD`, …
    pub method: String,
    /// The path without query or fragment (`/`, `/app.js`).
    pub path: String,
    /// The `Accept-Encoding` header's value ("" when absent).
    pub accept_encoding: String,
}

/// Accepts connections on `listener` for ever, answering each request with
/// `answer` on a thread of its own (one slow reader holds up nobody).
pub fn serve<'f, F>(listener: TcpListener, answer: F)
where
    F: Fn(&Request) -> Answer<'f> + Sync,
{
    std::thread::scope(|scope| {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let answer = &answer;
            // A client that went away is its own business; keep serving.
            scope.spawn(move || {
                let _ = exchange(stream, answer);
            });
        }
    });
}

/// Longest request line or header line read, bytes.
const MAX_LINE: u64 = 8192;
/// Most header lines read.
const MAX_HEADERS: usize = 100;

/// Reads one request from `stream`, writes its answer and closes.
fn exchange<'f>(
    mut stream: TcpStream,
    answer: &impl Fn(&Request) -> Answer<'f>,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.by_ref().take(MAX_LINE).read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
    let mut accept_encoding = String::new();
    for _ in 0..MAX_HEADERS {
        let mut header = String::new();
        if reader.by_ref().take(MAX_LINE).read_line(&mut header)? == 0 {
            break;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("accept-encoding")
        {
            accept_encoding = value.trim().to_string();
        }
    }
    let request = Request {
        method,
        path,
        accept_encoding,
    };
    let a = answer(&request);
    let mut head = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nVary: Accept-Encoding\r\nConnection: close\r\n",
        a.status,
        a.mime,
        a.body.len()
    );
    if let Some(encoding) = a.encoding {
        head.push_str(&format!("Content-Encoding: {encoding}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if request.method != "HEAD" {
        stream.write_all(a.body)?;
    }
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Write)
}
