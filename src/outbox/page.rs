//! The page's events as a tab's inputs (`tab_io.rs`): which events the shell listens to, and
//! what each means. The shell forwards each as it comes; these methods of [`OutboxRules`] read it.

use super::exports::OutboxRules;
use super::record::Fields;
use super::shell::HINT;
use super::tab_io::Input;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::Array;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl OutboxRules {
    /// The events the shell listens to for the tab: the document's, and the window's.
    #[wasm_bindgen(getter, js_name = documentEvents)]
    pub fn document_events(&self) -> Vec<String> {
        ["visibilitychange", "freeze", "resume"].map(String::from).into()
    }

    #[wasm_bindgen(getter, js_name = windowEvents)]
    pub fn window_events(&self) -> Vec<String> {
        ["pagehide", "pageshow", "online", "offline"].map(String::from).into()
    }

    /// The BroadcastChannel the tabs of a shared store hint on.
    #[wasm_bindgen(getter)]
    pub fn channel(&self) -> Option<String> {
        self.0.shared.then(|| self.0.outbox_name(""))
    }

    /// An event of the page, the network or the channel (`visibility`: the document's).
    pub fn event(&self, event: JsValue, visibility: Option<String>) {
        let persisted = event.flag("persisted") == Some(true);
        let input = match event.text("type").as_deref() {
            Some("visibilitychange") if visibility.as_deref() == Some("hidden") => Input::Hidden,
            Some("visibilitychange") => Input::Shown,
            Some("freeze") => Input::Frozen,
            Some("pagehide") if persisted => Input::Frozen,
            Some("pagehide") => Input::Left,
            Some("resume") => Input::Resumed,
            Some("pageshow") if persisted => Input::Resumed,
            Some("online") => Input::Online,
            Some("offline") => Input::Offline,
            Some("message") => match self.hinted(&event) {
                Some(input) => input,
                None => return,
            },
            _ => return,
        };
        self.0.on(input);
    }

    /// A hint of another tab (`{ type, v: 1, keys?, released? }`): the keys read again, and a
    /// round asked for when that tab let go. Anything else on the channel changes nothing.
    fn hinted(&self, event: &JsValue) -> Option<Input> {
        let data = event.object("data")?;
        if data.text("type").as_deref() != Some(HINT) || data.number("v") != Some(1.0) {
            return None;
        }
        let keys = data.object("keys").filter(Array::is_array).map(|keys| Array::from(&keys));
        if let (Some(keys), Some(shell)) = (keys, self.0.shell()) {
            keys.iter().filter(JsValue::is_string).for_each(|key| shell.reread(&key));
        }
        (data.flag("released") == Some(true)).then_some(Input::Released)
    }
}
