// The messages between the requester's two engines (transport/req_tx, transport/req_ack):
// each QP's requester state is in two parts of its context, each written by one engine
// only, and what one engine must know of the other's part travels here, in order.
//
// req_tx -> req_ack: what was sent, and the SQ's end (a flush completes up to it)
//   SENT   the packets before {CI, NPSN, PKT} are out (PKT: of the WQE at CI), sent in
//          rewind generation GEN (one from before a rewind req_ack asked for is stale)
//   FLUSH  the QP is in error (the responder's, a command's, or req_ack's own): complete
//          every WQE up to PI
//   ERROR  the WQE at CI failed with STATUS before it went; the QP is in error
`define REQ_TXM_WIDTH 122
`define REQ_TXM_QPN 23:0
`define REQ_TXM_KIND 25:24
`define REQ_TXM_GEN 33:26
`define REQ_TXM_CI 49:34
`define REQ_TXM_NPSN 73:50
`define REQ_TXM_PKT 97:74
`define REQ_TXM_PI 113:98
`define REQ_TXM_STATUS 121:114
// the bits that say which messages a newer one may replace while they wait (a SENT)
`define REQ_TXM_KEY_WIDTH 34
`define REQ_TXM_SENT 2'd0
`define REQ_TXM_FLUSH 2'd1
`define REQ_TXM_ERROR 2'd2
//
// req_ack -> req_tx: give the QP a turn (something it waited for may be over), with
//   RD_DONE  READs answered in full so far (the READ window and fences count on it)
//   WAIT     an RNR NAK is being waited out: send nothing until a message without it
//   REWIND   send again from {CI, NPSN, PKT} (go-back-N; a new rewind generation)
//   STOP     req_ack put the QP in error: send nothing more, and answer with a FLUSH
`define REQ_ACKM_WIDTH 99
`define REQ_ACKM_QPN 23:0
`define REQ_ACKM_REWIND 24
`define REQ_ACKM_WAIT 25
`define REQ_ACKM_STOP 26
`define REQ_ACKM_CI 42:27
`define REQ_ACKM_NPSN 66:43
`define REQ_ACKM_PKT 90:67
`define REQ_ACKM_RD_DONE 98:91
