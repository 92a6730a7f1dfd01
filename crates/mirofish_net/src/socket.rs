//! A UDP socket for a session's messages, bound where the game says (GGRS's
//! own binds every interface).

use std::io::ErrorKind;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};

use ggrs::{Message, NonBlockingSocket};

/// The largest datagram read (GGRS's messages are far smaller).
const RECEIVE_BUFFER: usize = 4096;

/// A non-blocking UDP socket carrying a GGRS session's messages, bound to
/// the address given: `127.0.0.1:0` keeps a session on this machine (a
/// free port), `0.0.0.0:7000` offers it to the network.
#[derive(Debug)]
pub struct NetSocket {
    socket: UdpSocket,
    buffer: Box<[u8; RECEIVE_BUFFER]>,
}

impl NetSocket {
    /// Binds a non-blocking socket to `address`.
    pub fn bind(address: impl ToSocketAddrs) -> std::io::Result<Self> {
        let socket = UdpSocket::bind(address)?;
        socket.set_nonblocking(true)?;
        Ok(Self { socket, buffer: Box::new([0; RECEIVE_BUFFER]) })
    }

    /// The address it is bound to (with the port the system chose for
    /// port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.socket.local_addr()
    }
}

impl NonBlockingSocket<SocketAddr> for NetSocket {
    fn send_to(&mut self, message: &Message, address: &SocketAddr) {
        // A message that cannot be encoded or sent is lost, as a datagram
        // may be: GGRS sends again what was not acknowledged.
        if let Ok(bytes) = bincode::serialize(message) {
            let _lost = self.socket.send_to(&bytes, address);
        }
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let mut received = Vec::new();
        loop {
            match self.socket.recv_from(&mut self.buffer[..]) {
                Ok((length, from)) => {
                    // Anything that is not a message of this protocol is
                    // dropped.
                    if let Ok(message) = bincode::deserialize(&self.buffer[..length]) {
                        received.push((from, message));
                    }
                }
                // A datagram socket may report a peer's closed port here.
                Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
                Err(_) => return received,
            }
        }
    }
}
