use plant_store_client::{Client, Config, Kind, NewPlant};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(js_namespace = console)]
extern "C" { fn log(text: &str); } // console.log: println! prints nothing in wasm

/// Sends a fern with `id` to the Plant Store at `base_url`: a refusal is logged, any other error
/// rejects the promise that JavaScript holds.
#[wasm_bindgen]
pub async fn add_fern(base_url: String, token: String, id: i64) -> Result<(), JsError> {
    let client = Client::new(Config::new(base_url).token(token))?;
    match client.create_plant(&NewPlant { id, name: "Fern".into(), tag: None }).await {
        Ok(plant) => log(&format!("created {}", plant.name)),
        Err(e) if e.kind() == Kind::Rejected => log(&format!("refused: {e}")),
        Err(e) => return Err(e.into()),
    }
    Ok(())
}
