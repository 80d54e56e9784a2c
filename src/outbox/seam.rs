//! The seam between the outbox's Rust and its JS shell, one door each way: what the shell and the
//! app tell is one [`OutboxCore::input`], a plain object `{ type, … }` read here into the tab's
//! `Input`; what Rust asks of the shell is one `perform(action)`, an object written here from the
//! tab's `Action`. Their TypeScript (`OutboxInput`, `OutboxAction`) is in `src/js/outbox.d.ts`.
//! Read by hand, not with serde-wasm-bindgen: docs/outbox.md weighs the two.

use super::config::settings;
use super::driver::{Driver, Shell};
use super::entry::{Entry, Record};
use super::record::{self, Fields, Sink};
use super::tab::{Action, Failure, Input, Put, Tab};
use super::table::Event;
use crate::config::uuid;
use crate::error::Draft;
use crate::js::api::new_plant;
use crate::Error;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Date, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("../js/outbox.d.ts");

/// How many created entries a load reads, newest first (the others are read by key).
const SHOWN: u32 = 100;
/// A hint on the channel: `{ type, v: 1, keys, released? }`, the keys to read again (never the
/// data), or that a tab let go.
const HINT: &str = "plant-store-outbox";

/// Opens the outbox `options` describe: the promise of its `PlantOutbox`.
#[wasm_bindgen(js_name = openOutbox, skip_typescript)]
pub fn open_outbox(options: JsValue) -> Promise {
    let settings = match settings(&options) {
        Ok(settings) => settings,
        Err(error) => return Promise::reject(&error.to_js()),
    };
    let platform = settings.platform.clone();
    let document = field(&platform, "document");
    let locks = !field(&field(&platform, "navigator"), "locks").is_undefined();
    let hidden = field(&document, "visibilityState").as_string().as_deref() == Some("hidden");
    let seed = (js_sys::Math::random() * 9.0e15) as u64;
    let mut tab = Tab::new(settings.rules.clone(), locks, online(&platform), hidden, seed);
    // Where there are pages (not in Node), each sends: it says so.
    if !locks && !document.is_undefined() {
        tab.warn("this browser has no Web Locks API");
    }
    open(OutboxCore(Driver::new(settings, tab)), &platform)
}

/// One open outbox, as its JS shell holds it.
#[wasm_bindgen(skip_typescript)]
pub struct OutboxCore(Rc<Driver>);

#[wasm_bindgen]
impl OutboxCore {
    /// Tells the outbox `input` (an `OutboxInput`): a promise for an app's call, else undefined.
    pub fn input(&self, input: JsValue) -> JsValue {
        let driver = &self.0;
        let online = online(&driver.settings.platform);
        // A page may not tell that the network went or came: it is read at each input.
        if driver.online.replace(online) != online {
            let kind = if online { "online" } else { "offline" };
            let id = String::new();
            driver.tell(Input::Event { kind: kind.into(), persisted: false, hidden: false, id });
        }
        match read(driver, &input) {
            Ok(Told::Input(input)) => driver.tell(input),
            Ok(Told::Call(mut input)) => {
                let (n, promise) = driver.promise();
                if let Input::Open { reply, .. }
                | Input::Add { reply, .. }
                | Input::Get { reply, .. }
                | Input::Act { reply, .. }
                | Input::Flush { reply } = &mut input
                {
                    *reply = n;
                }
                driver.tell(input);
                return promise.into();
            }
            Ok(Told::Nothing) => {}
            Err(error) => return Promise::reject(&error.to_js()).into(),
        }
        JsValue::UNDEFINED
    }

    /// The entries this tab holds, in the order they were added: the same frozen array until one
    /// changes.
    pub fn entries(&self) -> JsValue {
        self.0.entries()
    }

    /// The records set aside: `{ key, reason, record }` each.
    pub fn unreadable(&self) -> Array {
        let tab = self.0.tab.borrow();
        let each = tab.held.aside.iter().map(|(key, reason, raw)| {
            let one = Object::new();
            (set(&one, "key", key.as_str()), set(&one, "reason", reason.as_str()));
            set(&one, "record", raw.clone());
            one
        });
        each.collect()
    }
}

impl core::fmt::Debug for OutboxCore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("OutboxCore")
    }
}

/// What was told: an input for the tab, an app's call (its input, once it has a reply number), or
/// nothing.
enum Told {
    Input(Input<JsValue>),
    Call(Input<JsValue>),
    Nothing,
}

/// Reads an `OutboxInput`.
fn read(driver: &Driver, input: &JsValue) -> Result<Told, Error> {
    let n = input.number("n").unwrap_or_default() as u32;
    let key = input.text("key").unwrap_or_default();
    let records = || -> Vec<Option<Record<JsValue>>> {
        list(input, "records").iter().map(|raw| record::read(&raw)).collect()
    };
    let redact = |draft| driver.redact(draft);
    let cause = field(input, "cause");
    let told = match input.text("type").as_deref().unwrap_or_default() {
        "open" => {
            driver.shell.replace(Some(field(input, "shell").unchecked_into::<Shell>()));
            Input::Open { reply: 0, id: uuid("the outbox").unwrap_or_default() }
        }
        "add" => {
            let plant = new_plant(&field(input, "plant"));
            let (plant, bigint) = plant.map_err(|issues| redact(Draft::validation(issues)))?;
            let key = uuid("outbox.add").map_err(redact)?;
            let at = Date::now().max(driver.last_added.get() + 1.0);
            driver.last_added.set(at);
            Input::Add { reply: 0, entry: Entry::new(key, plant, bigint, at) }
        }
        "get" => Input::Get { reply: 0, key },
        "retry" => {
            let event = Event::Retry { key: uuid("outbox.retry").map_err(redact)? };
            Input::Act { reply: 0, key, event, name: "retry" }
        }
        "markCreated" => Input::Act { reply: 0, key, event: Event::Resolve, name: "markCreated" },
        "remove" => Input::Act { reply: 0, key, event: Event::Remove, name: "remove" },
        "flush" => Input::Flush { reply: 0 },
        "pause" => return Ok(Told::Input(Input::Paused(true))),
        "resume" => return Ok(Told::Input(Input::Paused(false))),
        "close" => return Ok(Told::Input(Input::Close)),
        "opened" => return Ok(Told::Input(Input::Opened { n })),
        "read" => return Ok(Told::Input(Input::Read { n, records: records() })),
        "written" => {
            let failures = list(input, "failures").iter().map(failure).collect();
            return Ok(Told::Input(Input::Written { n, failures }));
        }
        "fed" => {
            let prefix = driver.settings.named("/tab/");
            let live = field(input, "locks").dyn_into::<Array>().ok().map(|locks| {
                let names = locks.iter().filter_map(|name| name.as_string());
                names.filter_map(|name| Some(name.strip_prefix(prefix.as_str())?.into())).collect()
            });
            return Ok(Told::Input(Input::Fed { n, keys: strings(input, "keys"), live }));
        }
        "purged" => {
            let (keys, next) = (strings(input, "keys"), input.number("next"));
            return Ok(Told::Input(Input::Purged { n, keys, next }));
        }
        "failed" => {
            let failure = failure(cause).unwrap_or(Failure { said: String::new(), cause: None });
            return Ok(Told::Input(Input::Failed { n, failure }));
        }
        "granted" => {
            return Ok(Told::Input(Input::Granted { tab: input.flag("tab") == Some(true) }))
        }
        "refused" => {
            let why = cause.text("name").unwrap_or_else(|| said(&cause));
            return Ok(Told::Input(Input::Refused { tab: input.flag("tab") == Some(true), why }));
        }
        "timer" => return Ok(Told::Input(Input::Timer)),
        "event" => return Ok(event(driver, &field(input, "event"))),
        _ => return Ok(Told::Nothing),
    };
    Ok(Told::Call(told))
}

/// An event of the page, the network or the store as the tab's input; a message on the channel, a
/// hint of another tab (anything else on it changes nothing).
fn event(driver: &Driver, event: &JsValue) -> Told {
    let kind = event.text("type").unwrap_or_default();
    if kind != "message" {
        let document = field(&driver.settings.platform, "document");
        let hidden = field(&document, "visibilityState").as_string().as_deref() == Some("hidden");
        let (persisted, id) = (event.flag("persisted") == Some(true), uuid("").unwrap_or_default());
        return Told::Input(Input::Event { kind, persisted, hidden, id });
    }
    match event.object("data") {
        Some(data)
            if data.text("type").as_deref() == Some(HINT) && data.number("v") == Some(1.0) =>
        {
            let released = data.flag("released") == Some(true);
            Told::Input(Input::Hint { keys: strings(&data, "keys"), released })
        }
        _ => Told::Nothing,
    }
}

impl Driver {
    /// The `OutboxAction` the shell performs for `action`; none for what Rust does itself.
    pub(crate) fn action(&self, action: Action<JsValue>) -> Option<JsValue> {
        let out = Object::new();
        let with = |name: &str, value: JsValue| set(&out, name, value);
        let (kind, n) = match action {
            Action::Open { n } => {
                with("name", self.settings.named("").into());
                ("open", n)
            }
            Action::Read { n, keys } => {
                with("created", SHOWN.into());
                if let Some(keys) = keys {
                    with("keys", to_js(keys).into());
                }
                ("read", n)
            }
            Action::Feed { n, until, locks } => {
                with("until", until.into());
                with("locks", locks.into());
                ("feed", n)
            }
            Action::Purge { n, now } => {
                with("now", now.into());
                ("purge", n)
            }
            Action::Write { n, keys, by_id, strict } => {
                with("keys", to_js(keys).into());
                with("byId", by_id.into());
                with("strict", strict.into());
                ("write", n)
            }
            Action::Apply { n, puts } => {
                let records = puts.iter().map(|put| match put {
                    Put::Keep => JsValue::UNDEFINED,
                    Put::Entry(entry) => record::write::<Object>(entry).into(),
                    Put::Delete => JsValue::NULL,
                });
                with("records", records.collect::<Array>().into());
                ("apply", n)
            }
            Action::Insert { n, entry } => {
                with("record", record::write::<Object>(&entry).into());
                ("insert", n)
            }
            Action::Lock { tab } => {
                let id =
                    if tab { ["/tab/", &self.tab.borrow().id].concat() } else { String::new() };
                with("name", self.settings.named(&id).into());
                with("tab", tab.into());
                ("lock", 0)
            }
            Action::Release { tab } => {
                with("tab", tab.into());
                ("release", 0)
            }
            Action::Post { keys, released } => {
                let hint = Object::new();
                (set(&hint, "type", HINT), set(&hint, "v", 1), set(&hint, "keys", to_js(keys)));
                if released {
                    set(&hint, "released", true);
                }
                with("hint", hint.into());
                ("post", 0)
            }
            Action::Arm { at } => {
                let ms = at.map(|at| (at - Date::now()).clamp(0.0, 2_147_483_647.0));
                with("ms", ms.into());
                ("arm", 0)
            }
            Action::Changed { key } => {
                with("detail", self.changed(&key));
                ("changed", 0)
            }
            Action::Closed { why } => {
                with("why", why.into());
                ("closed", 0)
            }
            Action::Abandon => ("abandon", 0),
            Action::Shut => ("shut", 0),
            Action::Call { .. } | Action::Abort | Action::Reply { .. } | Action::Warn(_) => {
                return None
            }
        };
        set(&out, "type", kind);
        if n > 0 {
            set(&out, "n", n);
        }
        Some(out.into())
    }
}

/// Whether the platform is online (`navigator.onLine` not false).
fn online(platform: &JsValue) -> bool {
    field(&field(platform, "navigator"), "onLine").as_bool() != Some(false)
}

/// A failure the shell told (none: nothing failed).
fn failure(cause: JsValue) -> Option<Failure<JsValue>> {
    let failed = !cause.is_undefined() && !cause.is_null();
    failed.then(|| Failure { said: said(&cause), cause: Some(cause) })
}

/// What a failure says, on one line: its name and message.
pub(crate) fn said(cause: &JsValue) -> String {
    let text = match (cause.text("name"), cause.text("message")) {
        (Some(name), Some(message)) if !name.is_empty() => [name.as_str(), ": ", &message].concat(),
        (_, Some(message)) => message,
        _ => cause.as_string().unwrap_or_else(|| "an unknown failure".into()),
    };
    let line: String = text.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    line.trim_end_matches('.').into()
}

fn list(value: &JsValue, name: &str) -> Array {
    field(value, name).dyn_into().unwrap_or_default()
}

fn strings(value: &JsValue, name: &str) -> Vec<String> {
    list(value, name).iter().filter_map(|key| key.as_string()).collect()
}

fn to_js(keys: Vec<String>) -> Array {
    keys.into_iter().map(JsValue::from).collect()
}

pub(crate) fn set(object: &Object, name: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(object, &name.into(), &value.into());
}

/// The field `name` of `value` (undefined when it has none, or reading it threw).
pub(crate) fn field(value: &JsValue, name: &str) -> JsValue {
    match value.is_object() {
        true => Reflect::get(value, &name.into()).unwrap_or_default(),
        false => JsValue::UNDEFINED,
    }
}

impl Fields for JsValue {
    fn text(&self, name: &str) -> Option<String> {
        field(self, name).as_string()
    }
    fn number(&self, name: &str) -> Option<f64> {
        field(self, name).as_f64()
    }
    fn flag(&self, name: &str) -> Option<bool> {
        field(self, name).as_bool()
    }
    fn object(&self, name: &str) -> Option<JsValue> {
        Some(field(self, name)).filter(JsValue::is_object)
    }
    fn has(&self, name: &str) -> bool {
        !field(self, name).is_undefined()
    }
}

impl Sink for Object {
    fn new() -> Object {
        Object::new()
    }
    fn text(&mut self, name: &str, value: &str) {
        set(self, name, value);
    }
    fn number(&mut self, name: &str, value: f64) {
        set(self, name, value);
    }
    fn flag(&mut self, name: &str, value: bool) {
        set(self, name, value);
    }
    fn id(&mut self, name: &str, id: i64, bigint: bool) {
        match bigint {
            true => set(self, name, id),
            false => set(self, name, id as f64),
        }
    }
    fn object(&mut self, name: &str, value: Object) {
        set(self, name, value);
    }
}

#[wasm_bindgen(module = "/js/outbox/outbox.js")]
extern "C" {
    /// `open(core, platform)`: the shell over `core`, opened: the promise of its `PlantOutbox`.
    fn open(core: OutboxCore, platform: &JsValue) -> Promise;

    /// `PlantOutbox`, the shell's class, re-exported by the generated module under its name (the
    /// class is declared in `outbox.d.ts`).
    #[wasm_bindgen(reexport, skip_typescript, js_name = PlantOutbox)]
    fn plant_outbox_class();
}
