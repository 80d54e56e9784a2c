#[cfg(test)]
mod tests {
    //! A seeded simulation of an outbox's tabs, natively in `cargo test`: several tabs' machines
    //! (`tab.rs`, as the driver runs them) over a simulated store (IndexedDB: transactions run one
    //! at a time, each whole), Web Locks, channel, network, Plant Store and clock, with answers
    //! lost, delayed and reordered, 503s before and after the write, 429s with Retry-After, servers
    //! that honour keys, ignore them or forget them, pages hidden, shown, frozen, resumed, cached,
    //! closed, crashed and reloaded, a tab's own lock or its round's lock refused, stores closed
    //! under their tabs and entries removed by the app, at random. After each run, with the faults
    //! over: every plant created exactly once against a server that honours keys, none lost, none
    //! removed that comes back, none in flight twice among live tabs, none said rejected when a
    //! send may have created it, every app call of a tab still there answered. After every input:
    //! no shown tab idle with an entry due and its timer more than a second away.
    //!
    //! `cargo test --features outbox sim` runs `SIM_RUNS` schedules (default 2,000) from seed
    //! `SIM_FROM` (default 0); a failure names its seed, and `SIM_SEED=<seed>` replays it alone
    //! (`SIM_TRACE=1` prints its events).

    use super::super::config::Rules;
    use super::super::entry::{Entry, EntryError, Record, Sent, State};
    use super::super::tab::{Action, Answer, Failure, Input, Page, Round, Tab, AGAIN_MS};
    use super::super::table::{Event, Step};
    use crate::Kind;
    use alloc::collections::{BTreeMap, BTreeSet};
    use alloc::format;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;
    use plant_store_model::{NewPlant, Plant};
    use std::println;

    /// A small deterministic random source (splitmix64).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
        fn ms(&mut self, from: u64, to: u64) -> f64 {
            (from + self.below(to - from + 1)) as f64
        }
    }

    /// How the Plant Store treats keys and ids.
    #[derive(Clone, Copy, Debug)]
    struct Server {
        honours: bool,
        /// Forgets a key this long after it first saw it.
        forgets: Option<f64>,
        /// Refuses a plant whose id it holds ("duplicate id"), as the Plant Store does.
        refuses: bool,
    }

    #[derive(Debug)]
    enum Ev {
        /// An input for tab `t`, of its life `life` (a new life after each reload).
        Input { t: usize, life: u32, input: Input<()> },
        /// The store runs its next transaction.
        Store,
        /// A request of tab `t` (call `n`, life `life`) reaches the server.
        Arrive { t: usize, life: u32, n: u32, entry: Entry, fault: Fault },
        /// Tab `t`'s timer, armed as its `armed`th.
        Timer { t: usize, life: u32, armed: u32 },
        /// The world: something happens to a tab, or the network.
        World,
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Fault {
        None,
        LostRequest,
        LostAnswer,
        Before503,
        After503,
        TooMany,
        Late,
        /// The token source failed: no request went out.
        NoToken,
    }

    /// A transaction waiting to run: tab `t`'s action.
    #[derive(Debug)]
    struct Tx {
        t: usize,
        life: u32,
        action: Action<()>,
    }

    #[derive(Debug, PartialEq)]
    enum Life {
        Open,
        Frozen,
        /// The app closed its outbox: the page lives on.
        Closed,
        /// Its page went: nothing of it runs again (its requests out still reach the server).
        Dead,
    }

    struct SimTab {
        tab: Tab<()>,
        life: u32,
        state: Life,
        hidden: bool,
        online: bool,
        /// Inputs that came while it was frozen.
        waiting: Vec<Input<()>>,
        armed: u32,
        replies: u32,
        /// The adds and removes under way: reply → plant id; the flushes under way.
        adds: BTreeMap<u32, i64>,
        removes: BTreeMap<u32, i64>,
        flushes: BTreeSet<u32>,
        /// Its calls out: n → key, until each ended.
        calls: BTreeMap<u32, String>,
        /// A service worker's tab, woken by Background Sync: no page life; it ends once its round
        /// has delivered what it could, or the browser stops it.
        worker: bool,
    }

    struct Sim {
        rng: Rng,
        trace: bool,
        now: f64,
        seq: u64,
        events: BTreeMap<(u64, u64), Ev>,
        tabs: Vec<SimTab>,
        store: BTreeMap<String, Entry>,
        txs: Vec<Tx>,
        /// Web Locks: the one of rounds (held, asked), each tab's own (by its id); none at all.
        round_lock: Option<usize>,
        lock_queue: Vec<usize>,
        tab_locks: BTreeSet<String>,
        locks: bool,
        server: Server,
        keys: BTreeMap<String, (f64, Result<Plant, u16>)>,
        /// How many times the server created each plant id.
        created: BTreeMap<i64, u32>,
        /// The plants whose add resolved to an entry: id → plant; those the app asked to remove
        /// (gone, or not: the tab may have gone before its write), and those it removed.
        added: BTreeMap<i64, NewPlant>,
        removing: BTreeSet<i64>,
        removed: BTreeSet<i64>,
        next_id: i64,
        calm: bool,
        /// A page asked for Background Sync: a worker wakes to deliver.
        sync: bool,
        rules: Rules,
        keys_out: BTreeMap<String, usize>,
    }

    const TIMEOUT_MS: f64 = 10_000.0;

    impl Sim {
        fn new(seed: u64, trace: bool) -> Sim {
            let mut rng = Rng(seed);
            let server = match rng.below(4) {
                0 => Server { honours: false, forgets: None, refuses: true },
                1 => Server { honours: true, forgets: Some(60_000.0), refuses: rng.chance(50) },
                _ => Server { honours: true, forgets: None, refuses: rng.chance(70) },
            };
            let key_lifetime_ms = match server.forgets {
                Some(forgets) => forgets / 2.0,
                None => f64::INFINITY,
            };
            let concurrency = 1 + rng.below(4) as usize;
            let rules = Rules {
                concurrency,
                send_ms: TIMEOUT_MS + 1_000.0,
                retention_ms: 86_400_000.0,
                key_lifetime_ms,
                worker: false,
            };
            let mut sim = Sim {
                rng,
                trace,
                now: 1_000_000.0,
                seq: 0,
                events: BTreeMap::new(),
                tabs: Vec::new(),
                store: BTreeMap::new(),
                txs: Vec::new(),
                round_lock: None,
                lock_queue: Vec::new(),
                tab_locks: BTreeSet::new(),
                locks: true,
                server,
                keys: BTreeMap::new(),
                created: BTreeMap::new(),
                added: BTreeMap::new(),
                removing: BTreeSet::new(),
                removed: BTreeSet::new(),
                next_id: 1,
                calm: false,
                sync: false,
                rules,
                keys_out: BTreeMap::new(),
            };
            sim.locks = sim.rng.chance(80);
            for _ in 0..1 + sim.rng.below(3) {
                sim.open_tab(false);
            }
            for _ in 0..40 {
                let at = sim.rng.ms(0, 60_000);
                sim.at(at, Ev::World);
            }
            sim
        }

        fn at(&mut self, after: f64, ev: Ev) {
            self.seq += 1;
            self.events.insert(((self.now + after) as u64, self.seq), ev);
        }

        fn tell(&mut self, t: usize, after: f64, input: Input<()>) {
            let life = self.tabs[t].life;
            self.at(after, Ev::Input { t, life, input });
        }

        fn open_tab(&mut self, worker: bool) {
            let t = self.tabs.len();
            let seed = self.rng.next();
            let rules = Rules { worker, ..self.rules.clone() };
            let tab = Tab::new(rules, self.locks, true, seed);
            let state = Life::Open;
            let (waiting, adds, calls) = (Vec::new(), BTreeMap::new(), BTreeMap::new());
            let sim = SimTab {
                tab,
                life: 0,
                state,
                hidden: false,
                online: true,
                waiting,
                armed: 0,
                replies: 0,
                adds,
                removes: BTreeMap::new(),
                flushes: BTreeSet::new(),
                calls,
                worker,
            };
            self.tabs.push(sim);
            self.deliver(t, Input::Open { reply: 0 });
        }

        /// Runs until nothing is left, or `until`.
        fn run(&mut self, until: f64) {
            while let Some((&(at, seq), _)) = self.events.first_key_value() {
                if at as f64 > until {
                    break;
                }
                let ev = self.events.remove(&(at, seq)).unwrap();
                self.now = self.now.max(at as f64);
                match ev {
                    Ev::Input { t, life, input } => {
                        if self.tabs[t].life == life {
                            self.deliver(t, input);
                        }
                    }
                    Ev::Store => self.run_tx(),
                    Ev::Timer { t, life, armed } => {
                        if self.tabs[t].life == life && self.tabs[t].armed == armed {
                            self.deliver(t, Input::Timer);
                        }
                    }
                    Ev::Arrive { t, life, n, entry, fault } => {
                        self.arrive(t, life, n, entry, fault)
                    }
                    Ev::World if !self.calm => self.world(),
                    Ev::World => {}
                }
            }
        }

        fn deliver(&mut self, t: usize, input: Input<()>) {
            match self.tabs[t].state {
                Life::Dead => return,
                Life::Frozen if !matches!(input, Input::Event { .. }) => {
                    return self.tabs[t].waiting.push(input);
                }
                _ => {}
            }
            if self.trace {
                println!("{:>9} tab {t}: {input:?}", self.now as u64);
            }
            let input = match input {
                Input::Opened { n, .. } => Input::Opened { n, hidden: self.tabs[t].hidden },
                input => input,
            };
            if let Input::Answered { n, .. } = &input {
                if let Some(key) = self.tabs[t].calls.remove(n) {
                    self.out(&key);
                }
            }
            let actions = self.tabs[t].tab.handle(input, self.now);
            // A page shown, awake and idle with an entry due waits a second at most.
            let tab = &self.tabs[t].tab;
            let shown =
                tab.page == Page::Shown && !tab.rules.worker && self.tabs[t].state == Life::Open;
            let idle = shown && !tab.paused && tab.online && matches!(tab.round, Round::Idle);
            let due = tab.held.next_due().is_some_and(|at| at <= self.now);
            if idle && due && tab.timer.is_none_or(|at| at > self.now + AGAIN_MS) {
                panic!("tab {t} holds an entry due, its timer {:?}", tab.timer);
            }
            for action in actions {
                if self.tabs[t].state == Life::Dead {
                    break; // its page went as it worked: nothing more of it runs
                }
                self.perform(t, action);
            }
        }

        fn perform(&mut self, t: usize, action: Action<()>) {
            if self.trace {
                println!("{:>9}   tab {t} does {action:?}", self.now as u64);
            }
            let life = self.tabs[t].life;
            match action {
                // The page's visibility as the store opens: read as it is delivered.
                Action::Open { n } => self.tell(t, 1.0, Input::Opened { n, hidden: false }),
                Action::Read { .. }
                | Action::Feed { .. }
                | Action::Purge { .. }
                | Action::Write { .. }
                | Action::Insert { .. } => {
                    self.sync |= matches!(action, Action::Insert { sync: true, .. });
                    self.txs.push(Tx { t, life, action });
                    let after = self.rng.ms(0, 5);
                    self.at(after, Ev::Store);
                }
                Action::Apply { .. } => panic!("an Apply outside a write's transaction"),
                Action::Abandon => {
                    // The tab's transactions not yet run, but inserts, are aborted.
                    let (mine, rest): (Vec<Tx>, Vec<Tx>) =
                        core::mem::take(&mut self.txs).into_iter().partition(|tx| {
                            tx.t == t
                                && tx.life == life
                                && !matches!(tx.action, Action::Insert { .. })
                        });
                    self.txs = rest;
                    for tx in mine {
                        let failure = Failure { said: "AbortError: abandoned".into(), cause: None };
                        let input = match tx.action {
                            Action::Write { n, keys, .. } => Input::Written {
                                n,
                                failures: keys.iter().map(|_| Some(failure.clone())).collect(),
                            },
                            Action::Read { n, .. }
                            | Action::Feed { n, .. }
                            | Action::Purge { n, .. } => Input::Failed { n, failure },
                            _ => continue,
                        };
                        self.tell(t, 0.0, input);
                    }
                }
                Action::Shut => {}
                // A tab's own lock is refused now and then (a document no longer fully active).
                Action::Lock { tab: true } if self.locks && self.rng.chance(10) => {
                    self.tell(t, 0.0, Input::Refused { tab: true, why: "InvalidStateError".into() })
                }
                Action::Lock { tab: true } if self.locks => {
                    self.tab_locks.insert(self.tabs[t].tab.id.clone());
                    self.tell(t, 0.0, Input::Granted { tab: true });
                }
                Action::Lock { tab: true } => {}
                Action::Release { tab: true } => drop(self.tab_locks.remove(&self.tabs[t].tab.id)),
                // Now and then, the round's lock too: that tab's rounds go on without it.
                Action::Lock { tab: false } if self.locks && self.rng.chance(5) => {
                    let why = "InvalidStateError".into();
                    self.tell(t, 0.0, Input::Refused { tab: false, why })
                }
                Action::Lock { tab: false } => {
                    if self.round_lock.is_none() {
                        self.round_lock = Some(t);
                        self.tell(t, 1.0, Input::Granted { tab: false });
                    } else {
                        self.lock_queue.push(t);
                    }
                }
                Action::Release { tab: false } => self.release(t),
                Action::Post { keys, released } => {
                    for other in 0..self.tabs.len() {
                        if other != t && self.tabs[other].state != Life::Dead {
                            let after = self.rng.ms(0, 20);
                            let input = Input::Hint { keys: keys.clone(), released };
                            self.tell(other, after, input);
                        }
                    }
                }
                Action::Arm { at } => {
                    self.tabs[t].armed += 1;
                    if let Some(at) = at {
                        // Timers may fire a millisecond early, as Node's do.
                        let early = if self.rng.chance(20) { 1.0 } else { 0.0 };
                        let armed = self.tabs[t].armed;
                        self.at((at - self.now - early).max(0.0), Ev::Timer { t, life, armed });
                    }
                }
                Action::Call { n, entry } => self.call(t, n, entry),
                Action::Abort => {
                    let calls = core::mem::take(&mut self.tabs[t].calls);
                    for (n, key) in calls {
                        self.out(&key);
                        let error = EntryError {
                            kind: Kind::Aborted,
                            status: None,
                            code: None,
                            message: "aborted".into(),
                        };
                        let sent = Sent {
                            outcome: Err(error),
                            requests: 1,
                            maybe_created: true,
                            retry_after_ms: None,
                        };
                        self.tell(t, 1.0, Input::Answered { n, sent, left: true });
                    }
                }
                Action::Changed { .. } | Action::Closed { .. } | Action::Warn(_) => {}
                Action::Sync => self.sync = true,
                // A worker, once open, delivers; once its round is over, it ends (and the browser
                // fires the sync again later when entries still wait).
                Action::Reply { reply: 0, .. } if self.tabs[t].worker => {
                    self.deliver(t, Input::Flush { reply: 1 })
                }
                Action::Reply { reply: 1, answer: Answer::Flushed(waiting) }
                    if self.tabs[t].worker =>
                {
                    self.sync |= waiting > 0;
                    self.die(t);
                }
                Action::Reply { reply, answer } => {
                    self.tabs[t].flushes.remove(&reply);
                    if let Some(id) = self.tabs[t].removes.remove(&reply) {
                        if matches!(answer, Answer::Done) {
                            self.removed.insert(id);
                        }
                    }
                    if let Some(id) = self.tabs[t].adds.remove(&reply) {
                        if let Answer::Entry(Some(entry)) = answer {
                            self.added.insert(id, entry.plant);
                        }
                    }
                }
            }
        }

        fn release(&mut self, t: usize) {
            self.lock_queue.retain(|&q| q != t);
            if self.round_lock == Some(t) {
                self.round_lock = None;
                while !self.lock_queue.is_empty() {
                    let next = self.lock_queue.remove(0);
                    if self.tabs[next].state == Life::Dead {
                        continue;
                    }
                    self.round_lock = Some(next);
                    self.tell(next, 1.0, Input::Granted { tab: false });
                    break;
                }
            }
        }

        /// The store runs its oldest transaction, whole.
        fn run_tx(&mut self) {
            if self.txs.is_empty() {
                return;
            }
            let Tx { t, life, action } = self.txs.remove(0);
            if self.tabs[t].life != life {
                return;
            }
            let after = self.rng.ms(0, 3);
            match action {
                Action::Read { n, keys } => {
                    let records = match keys {
                        Some(keys) => keys.iter().map(|key| self.record(key)).collect(),
                        None => {
                            let all = self.store.values().filter(|e| e.state != State::Created);
                            let mut created: Vec<&Entry> =
                                self.store.values().filter(|e| e.state == State::Created).collect();
                            created
                                .sort_by(|a, b| b.expires_at.partial_cmp(&a.expires_at).unwrap());
                            all.chain(created.into_iter().take(100))
                                .map(|e| Some(Record::Entry(e.clone())))
                                .collect()
                        }
                    };
                    self.tell(t, after, Input::Read { n, records });
                }
                Action::Feed { n, until, locks } => {
                    let mut due: Vec<(f64, String)> = self
                        .store
                        .values()
                        .filter_map(|e| Some((e.due_at()?, e.key.clone())))
                        .filter(|(at, _)| *at <= until)
                        .collect();
                    due.sort_by(|a, b| a.partial_cmp(b).unwrap());
                    let live = locks.then(|| self.tab_locks.iter().cloned().collect());
                    let keys = due.into_iter().map(|(_, key)| key).collect();
                    self.tell(t, after, Input::Fed { n, keys, live });
                }
                Action::Purge { n, now } => {
                    let expired: Vec<String> = self
                        .store
                        .values()
                        .filter(|e| e.expires_at.is_some_and(|at| at <= now))
                        .map(|e| e.key.clone())
                        .collect();
                    expired.iter().for_each(|key| drop(self.store.remove(key)));
                    let next = self
                        .store
                        .values()
                        .filter_map(|e| e.expires_at)
                        .filter(|at| *at > now)
                        .reduce(f64::min);
                    self.tell(t, after, Input::Purged { n, keys: expired, next });
                }
                Action::Insert { n, entry, sync } => {
                    let held = self.store.contains_key(&entry.key)
                        || self.store.values().any(|e| e.plant.id == entry.plant.id);
                    let failure =
                        held.then(|| Failure { said: "ConstraintError: held".into(), cause: None });
                    if !held {
                        self.store.insert(entry.key.clone(), entry);
                    }
                    self.tell(t, after, Input::Written { n, failures: Vec::from([failure]) });
                    if sync {
                        // The registration, a round trip to the browser (a second at most).
                        let synced = after + self.rng.ms(0, 1_000);
                        self.tell(t, synced, Input::Synced { n });
                    }
                }
                Action::Write { n, keys, by_id } => {
                    let records: Vec<Option<Record<()>>> = keys
                        .iter()
                        .map(|key| match by_id {
                            true => self
                                .store
                                .values()
                                .find(|e| e.plant.id.to_string() == *key)
                                .cloned()
                                .map(Record::Entry),
                            false => self.record(key),
                        })
                        .collect();
                    let read: Vec<Option<String>> =
                        records.iter().map(|r| r.as_ref().map(|r| String::from(r.key()))).collect();
                    if self.trace {
                        println!(
                            "{:>9} tab {t}: Read {{ n: {n}, records: {read:?} }} (in its write)",
                            self.now as u64
                        );
                    }
                    let actions = self.tabs[t].tab.handle(Input::Read { n, records }, self.now);
                    for action in actions {
                        match action {
                            Action::Apply { n: m, steps } if m == n => {
                                for (step, key) in steps.into_iter().zip(&read) {
                                    match step {
                                        Step::Keep(_) | Step::Refused(_) => {}
                                        Step::Put(entry) => {
                                            if let Some(old) =
                                                key.as_ref().filter(|k| **k != entry.key)
                                            {
                                                self.store.remove(old);
                                            }
                                            self.store.insert(entry.key.clone(), entry);
                                        }
                                        Step::Delete => {
                                            drop(key.as_ref().map(|k| self.store.remove(k)))
                                        }
                                    }
                                }
                            }
                            action => self.perform(t, action),
                        }
                    }
                    let failures = keys.iter().map(|_| None).collect();
                    self.tell(t, after, Input::Written { n, failures });
                }
                _ => {}
            }
        }

        fn record(&self, key: &str) -> Option<Record<()>> {
            self.store.get(key).cloned().map(Record::Entry)
        }

        /// A call: its request goes out, and may reach the server.
        fn call(&mut self, t: usize, n: u32, entry: Entry) {
            let key = String::from(entry.idempotency_key());
            if let Some(&other) = self.keys_out.get(&key) {
                panic!("key {key} in flight twice: tab {t} sends it while tab {other} does");
            }
            self.keys_out.insert(key.clone(), t);
            self.tabs[t].calls.insert(n, key);
            let fault = if self.calm || !self.tabs[t].online {
                if self.tabs[t].online {
                    Fault::None
                } else {
                    Fault::LostRequest
                }
            } else {
                match self.rng.below(20) {
                    0 => Fault::LostRequest,
                    1 | 2 => Fault::LostAnswer,
                    3 => Fault::Before503,
                    4 => Fault::After503,
                    5 => Fault::TooMany,
                    6 => Fault::Late,
                    7 => Fault::NoToken,
                    _ => Fault::None,
                }
            };
            if fault == Fault::NoToken {
                let message = "getToken failed".into();
                let error = EntryError { kind: Kind::Config, status: None, code: None, message };
                let sent = Sent {
                    outcome: Err(error),
                    requests: 0,
                    maybe_created: false,
                    retry_after_ms: None,
                };
                return self.tell(t, 1.0, Input::Answered { n, sent, left: false });
            }
            let life = self.tabs[t].life;
            let after = self.rng.ms(1, 300);
            self.at(after, Ev::Arrive { t, life, n, entry, fault });
        }

        /// The call of `key` ended for its tab.
        fn out(&mut self, key: &str) {
            self.keys_out.remove(key);
        }

        fn arrive(&mut self, t: usize, life: u32, n: u32, entry: Entry, fault: Fault) {
            let key = String::from(entry.idempotency_key());
            let network = |message: &str| {
                let error = EntryError {
                    kind: Kind::Network,
                    status: None,
                    code: None,
                    message: message.into(),
                };
                Sent { outcome: Err(error), requests: 1, maybe_created: true, retry_after_ms: None }
            };
            let status = |status: u16, maybe: bool, wait: Option<u32>| {
                let kind = if status == 400 { Kind::Rejected } else { Kind::UnexpectedStatus };
                let code = (status == 400).then_some(3);
                let error =
                    EntryError { kind, status: Some(status), code, message: format!("{status}") };
                Sent {
                    outcome: Err(error),
                    requests: 1,
                    maybe_created: maybe,
                    retry_after_ms: wait,
                }
            };
            let sent = match fault {
                Fault::LostRequest => network("no answer"),
                Fault::Before503 => status(503, true, None),
                Fault::TooMany => status(429, false, Some(1 + self.rng.below(3_000) as u32)),
                _ => {
                    let answer = self.serve(&key, &entry);
                    match (fault, answer) {
                        (Fault::LostAnswer, _) => network("the answer was lost"),
                        (Fault::After503, _) => status(503, true, None),
                        (_, Ok(plant)) => Sent {
                            outcome: Ok(plant),
                            requests: 1,
                            maybe_created: false,
                            retry_after_ms: None,
                        },
                        (_, Err(code)) => status(code, false, None),
                    }
                }
            };
            // The answer comes back, unless the client gave up first: a timeout.
            let back =
                if fault == Fault::Late { self.rng.ms(5_000, 15_000) } else { self.rng.ms(1, 300) };
            let sent = if back > TIMEOUT_MS - 300.0 {
                let error = EntryError {
                    kind: Kind::Timeout,
                    status: None,
                    code: None,
                    message: "timeout".into(),
                };
                Sent { outcome: Err(error), requests: 1, maybe_created: true, retry_after_ms: None }
            } else {
                sent
            };
            if self.tabs[t].life != life || !self.tabs[t].calls.contains_key(&n) {
                return; // its page went, or it cut the call short
            }
            let after = back.min(TIMEOUT_MS - 300.0);
            self.seq += 1;
            let at = ((self.now + after) as u64, self.seq);
            self.events
                .insert(at, Ev::Input { t, life, input: Input::Answered { n, sent, left: false } });
        }

        /// The Plant Store's own answer to a request with `key`.
        fn serve(&mut self, key: &str, entry: &Entry) -> Result<Plant, u16> {
            let now = self.now;
            if self.server.honours {
                if let Some((first, answer)) = self.keys.get(key) {
                    if self.server.forgets.is_none_or(|after| now < first + after) {
                        return answer.clone();
                    }
                }
            }
            let id = entry.plant.id;
            let answer = if self.server.refuses && self.created.get(&id).is_some_and(|n| *n > 0) {
                Err(400)
            } else {
                *self.created.entry(id).or_default() += 1;
                Ok(Plant { name: entry.plant.name.clone(), tag: entry.plant.tag.clone() })
            };
            if self.server.honours {
                self.keys.insert(key.into(), (now, answer.clone()));
            }
            answer
        }

        /// Something happens in the world.
        fn world(&mut self) {
            let t = self.rng.below(self.tabs.len() as u64) as usize;
            let after = self.rng.ms(5_000, 20_000);
            self.at(after, Ev::World);
            if self.sync && !self.tabs.iter().any(|s| s.worker && s.state == Life::Open) {
                self.sync = false;
                return self.open_tab(true);
            }
            if matches!(self.tabs[t].state, Life::Dead | Life::Closed) {
                if self.rng.chance(50) {
                    self.open_tab(false);
                }
                return;
            }
            if self.tabs[t].worker {
                // The browser stops a worker whose event runs too long, at any moment.
                if self.rng.chance(40) {
                    self.die(t);
                }
                return;
            }
            let event = |kind: &str, persisted: bool, hidden: bool| Input::Event {
                kind: kind.into(),
                persisted,
                hidden,
            };
            let frozen = self.tabs[t].state == Life::Frozen;
            match self.rng.below(15) {
                0..=4 if !frozen => {
                    let reply = 1_000 + self.tabs[t].replies;
                    self.tabs[t].replies += 1;
                    let id = self.next_id;
                    self.next_id += 1;
                    let plant = NewPlant { id, name: format!("P{id}"), tag: None };
                    let key = format!("key-{id}-{}", self.rng.next() % 100_000);
                    let entry = Entry::new(key, plant, false, self.now + id as f64 * 0.001);
                    self.tabs[t].adds.insert(reply, id);
                    self.deliver(t, Input::Add { reply, entry });
                }
                5 if !frozen => {
                    let hidden = !self.tabs[t].hidden;
                    self.tabs[t].hidden = hidden;
                    self.deliver(t, event("visibilitychange", false, hidden));
                }
                6 if !frozen => {
                    self.deliver(t, event("freeze", false, self.tabs[t].hidden));
                    self.tabs[t].state = Life::Frozen;
                }
                6 | 7 if frozen => self.resume(t),
                8 if !frozen => {
                    // Into the back/forward cache, then back a while later.
                    self.deliver(t, event("pagehide", true, self.tabs[t].hidden));
                    self.tabs[t].state = Life::Frozen;
                }
                9 if !frozen => {
                    // The page leaves for good: it adds as it goes, sometimes, and then is gone.
                    self.deliver(t, event("pagehide", false, self.tabs[t].hidden));
                    self.die(t);
                }
                10 => self.die(t),
                11 if !frozen => {
                    let online = !self.tabs[t].online;
                    self.tabs[t].online = online;
                    self.deliver(t, event(if online { "online" } else { "offline" }, false, false));
                }
                12 if !frozen => {
                    let reply = 1_000 + self.tabs[t].replies;
                    self.tabs[t].replies += 1;
                    self.tabs[t].flushes.insert(reply);
                    self.deliver(t, Input::Flush { reply });
                }
                13 if !frozen && !self.store.is_empty() => {
                    // The app removes an entry, whatever its state and whoever sends it.
                    let at = self.rng.below(self.store.len() as u64) as usize;
                    let Some((key, entry)) = self.store.iter().nth(at) else { return };
                    let (key, id) = (key.clone(), entry.plant.id);
                    let reply = 1_000 + self.tabs[t].replies;
                    self.tabs[t].replies += 1;
                    self.tabs[t].removes.insert(reply, id);
                    self.removing.insert(id);
                    let event = Event::Remove;
                    self.deliver(t, Input::Act { reply, key, event, name: "remove" });
                }
                _ if !frozen && self.rng.chance(30) => {
                    // The app closes it, or its store closes under it (another page's newer
                    // version).
                    let input = match self.rng.chance(50) {
                        true => Input::Close,
                        false => event("versionchange", false, self.tabs[t].hidden),
                    };
                    self.deliver(t, input);
                    self.tabs[t].state = Life::Closed;
                }
                _ => {}
            }
        }

        fn resume(&mut self, t: usize) {
            self.tabs[t].state = Life::Open;
            let hidden = self.tabs[t].hidden;
            self.deliver(t, Input::Event { kind: "resume".into(), persisted: false, hidden });
            for input in core::mem::take(&mut self.tabs[t].waiting) {
                self.deliver(t, input);
            }
        }

        /// The tab's page is gone: its locks go, nothing of it runs again.
        fn die(&mut self, t: usize) {
            self.tabs[t].state = Life::Dead;
            self.tab_locks.remove(&self.tabs[t].tab.id);
            for (_, key) in core::mem::take(&mut self.tabs[t].calls) {
                self.out(&key);
            }
            self.txs.retain(|tx| tx.t != t || matches!(tx.action, Action::Insert { .. }));
            self.release(t);
            self.tabs[t].life += 1;
            self.sender();
        }

        /// At least one tab sends.
        fn sender(&mut self) {
            let page = |s: &SimTab| !s.worker && matches!(s.state, Life::Open | Life::Frozen);
            if !self.tabs.iter().any(page) {
                self.open_tab(false);
            }
        }

        /// The faults end: every page open, shown and online; time goes on until nothing is left.
        fn calm(&mut self) {
            self.calm = true;
            for t in 0..self.tabs.len() {
                if self.tabs[t].state == Life::Frozen {
                    self.resume(t);
                }
                if self.tabs[t].state == Life::Open {
                    if self.tabs[t].hidden {
                        self.tabs[t].hidden = false;
                        self.deliver(
                            t,
                            Input::Event {
                                kind: "visibilitychange".into(),
                                persisted: false,
                                hidden: false,
                            },
                        );
                    }
                    if !self.tabs[t].online {
                        self.tabs[t].online = true;
                        self.deliver(
                            t,
                            Input::Event { kind: "online".into(), persisted: false, hidden: false },
                        );
                    }
                }
            }
            self.sender();
        }

        /// What must hold once the faults are over and the tabs have done what they could.
        fn check(&self) -> Result<(), String> {
            for (t, tab) in self.tabs.iter().enumerate().filter(|(_, s)| s.state != Life::Dead) {
                if !tab.adds.is_empty() || !tab.removes.is_empty() || !tab.flushes.is_empty() {
                    let (adds, removes, flushes) = (&tab.adds, &tab.removes, &tab.flushes);
                    let calls = format!("{adds:?} {removes:?} {flushes:?}");
                    return Err(format!("tab {t}: app calls never answered: {calls}"));
                }
            }
            // A page open and awake holds no entry waiting that the store no longer has (a created
            // one may stay until it reloads: a tab that removed it may have gone before its hint).
            let awake = |s: &&SimTab| s.state == Life::Open && s.tab.page == Page::Shown;
            for (t, tab) in self.tabs.iter().enumerate().filter(|(_, s)| awake(s)) {
                let mut held = tab.tab.held.entries.iter().map(|kept| &kept.entry);
                let waiting = |e: &&Entry| matches!(e.state, State::Pending | State::Sending);
                if let Some(e) = held.find(|e| waiting(e) && !self.store.contains_key(&e.key)) {
                    return Err(format!(
                        "tab {t} holds {} {:?}, gone from the store",
                        e.key, e.state
                    ));
                }
            }
            for (id, plant) in self.added.iter().filter(|(id, _)| !self.removing.contains(id)) {
                if !self.store.values().any(|e| e.plant.id == *id) {
                    return Err(format!("plant {id} ({plant:?}) was lost: no entry holds it"));
                }
            }
            for entry in self.store.values() {
                let id = &entry.plant.id;
                if self.removed.contains(id) {
                    return Err(format!("plant {id} came back after its removal: {entry:?}"));
                }
                let created = self.created.get(id).copied().unwrap_or(0);
                if entry.state == State::Rejected && created > 0 {
                    return Err(format!(
                        "plant {id} said rejected, but the server created it: {entry:?}"
                    ));
                }
                let once = self.server.honours && self.server.forgets.is_none();
                if once && (created != 1 || entry.state != State::Created) {
                    let state = entry.state;
                    return Err(format!("plant {id} created {created} times, its entry {state:?}"));
                }
                if !self.server.refuses && created > 1 {
                    return Err(format!("plant {id} created {created} times: {entry:?}"));
                }
                if matches!(entry.state, State::Pending | State::Sending) {
                    return Err(format!(
                        "plant {id} still {:?} once all was calm: {entry:?}",
                        entry.state
                    ));
                }
            }
            Ok(())
        }
    }

    fn env(name: &str) -> Option<u64> {
        std::env::var(name).ok()?.parse().ok()
    }

    /// One schedule: the faults for a minute, then calm for long enough to send everything.
    fn schedule(seed: u64, trace: bool) -> Result<(), String> {
        let mut sim = Sim::new(seed, trace);
        let start = sim.now;
        sim.run(start + 60_000.0);
        sim.calm();
        sim.run(start + 60_000.0 + 3_600_000.0);
        sim.check()
    }

    #[test]
    fn a_seeded_simulation_of_tabs_faults_and_servers_holds_every_promise() {
        if let Some(seed) = env("SIM_SEED") {
            if let Err(why) = schedule(seed, std::env::var("SIM_TRACE").is_ok()) {
                panic!("seed {seed}: {why}");
            }
            return;
        }
        let (from, runs) = (env("SIM_FROM").unwrap_or(0), env("SIM_RUNS").unwrap_or(2_000));
        for seed in from..from + runs {
            let outcome = std::panic::catch_unwind(|| schedule(seed, false));
            let why = match outcome {
                Ok(Ok(())) => continue,
                Ok(Err(why)) => why,
                Err(panic) => panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default(),
            };
            panic!(
                "seed {seed} of {from}..{}: {why}\nreplay it alone: SIM_SEED={seed} SIM_TRACE=1 cargo test --features outbox --lib sim",
                from + runs
            );
        }
    }
}
