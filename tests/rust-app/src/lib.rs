//! The README's Rust example, as an app of its own: `add_fern` creates a plant through the crate's
//! Rust API and prints where a browser (or Node) shows it. `run` is the app's one export.

use plant_store_client::{Client, Config, Kind, NewPlant};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `console.log`: `println!` prints nothing in wasm.
    #[wasm_bindgen(js_namespace = console)]
    fn log(text: &str);
}

async fn add_fern(base_url: &str, token: &str, id: i64) -> Result<(), plant_store_client::Error> {
    let client = Client::new(Config::new(base_url).token(token))?;
    match client.create_plant(&NewPlant { id, name: "Fern".into(), tag: None }).await {
        Ok(plant) => log(&format!("created {}", plant.name)),
        Err(e) if e.kind() == Kind::Rejected => log(&format!("refused ({:?}): {e}", e.code())),
        Err(e) => return Err(e),
    }
    Ok(())
}

/// Adds a fern with `id` to the Plant Store at `base_url`.
#[wasm_bindgen]
pub async fn run(base_url: String, token: String, id: f64) -> Result<(), JsError> {
    add_fern(&base_url, &token, id as i64).await.map_err(|e| JsError::new(e.message()))
}
