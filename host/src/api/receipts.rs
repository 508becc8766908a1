//! `GET /receipts/public-key`: the public half of the key review receipts
//! are signed with, for checking them offline. It holds no secret, so it
//! answers without a key.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::AppState;

/// `GET /receipts/public-key`.
pub(super) async fn public_key(State(state): State<AppState>) -> Json<Value> {
    let key = &state.runtime.services().receipts;
    Json(json!({
        "algorithm": "Ed25519",
        "public_key": key.public_key(),
        "key_id": key.key_id(),
    }))
}
