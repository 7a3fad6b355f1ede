export namespace api {
	
	export class AuditLogArgs {
	    session_id: string;
	    kinds?: string[];
	    limit?: number;
	    before_seq?: number;
	
	    static createFrom(source: any = {}) {
	        return new AuditLogArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.kinds = source["kinds"];
	        this.limit = source["limit"];
	        this.before_seq = source["before_seq"];
	    }
	}
	export class CageStatus {
	    available: boolean;
	    mechanism: string;
	    version: string;
	    detail: string;
	
	    static createFrom(source: any = {}) {
	        return new CageStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.available = source["available"];
	        this.mechanism = source["mechanism"];
	        this.version = source["version"];
	        this.detail = source["detail"];
	    }
	}
	export class ExportAuditArgs {
	    session_id: string;
	    format: string;
	
	    static createFrom(source: any = {}) {
	        return new ExportAuditArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.format = source["format"];
	    }
	}
	export class KillAgentArgs {
	    session_id: string;
	    agent_id: string;
	
	    static createFrom(source: any = {}) {
	        return new KillAgentArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.agent_id = source["agent_id"];
	    }
	}
	export class PendingArgs {
	    session_id?: string;
	
	    static createFrom(source: any = {}) {
	        return new PendingArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	    }
	}
	export class PickFolderArgs {
	    title?: string;
	    default_directory?: string;
	
	    static createFrom(source: any = {}) {
	        return new PickFolderArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.title = source["title"];
	        this.default_directory = source["default_directory"];
	    }
	}
	export class RenameSessionArgs {
	    session_id: string;
	    title: string;
	
	    static createFrom(source: any = {}) {
	        return new RenameSessionArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.title = source["title"];
	    }
	}
	export class SavedFile {
	    path: string;
	    bytes: number;
	
	    static createFrom(source: any = {}) {
	        return new SavedFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.bytes = source["bytes"];
	    }
	}
	export class SendMessageArgs {
	    session_id: string;
	    text: string;
	
	    static createFrom(source: any = {}) {
	        return new SendMessageArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.text = source["text"];
	    }
	}
	export class SessionArgs {
	    session_id: string;
	
	    static createFrom(source: any = {}) {
	        return new SessionArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	    }
	}
	export class SessionEventsArgs {
	    session_id: string;
	    after_seq?: number;
	    before_seq?: number;
	    tail?: boolean;
	    limit?: number;
	
	    static createFrom(source: any = {}) {
	        return new SessionEventsArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.after_seq = source["after_seq"];
	        this.before_seq = source["before_seq"];
	        this.tail = source["tail"];
	        this.limit = source["limit"];
	    }
	}
	export class SetApprovalArgs {
	    session_id: string;
	    approval: number;
	
	    static createFrom(source: any = {}) {
	        return new SetApprovalArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.approval = source["approval"];
	    }
	}
	export class SetPlanningArgs {
	    session_id: string;
	    planning: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SetPlanningArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.planning = source["planning"];
	    }
	}
	export class SetSandboxArgs {
	    session_id: string;
	    sandbox: runtime.Sandbox;
	
	    static createFrom(source: any = {}) {
	        return new SetSandboxArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.sandbox = this.convertValues(source["sandbox"], runtime.Sandbox);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace config {
	
	export class Preset {
	    name: string;
	    label: string;
	    allow: string[];
	
	    static createFrom(source: any = {}) {
	        return new Preset(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.label = source["label"];
	        this.allow = source["allow"];
	    }
	}

}

export namespace gate {
	
	export class AnswerArgs {
	    request_id: string;
	    answer: string;
	    scope?: string;
	    expires_in_sec?: number;
	    note?: string;
	    trust_server?: string;
	    via?: string;
	
	    static createFrom(source: any = {}) {
	        return new AnswerArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.request_id = source["request_id"];
	        this.answer = source["answer"];
	        this.scope = source["scope"];
	        this.expires_in_sec = source["expires_in_sec"];
	        this.note = source["note"];
	        this.trust_server = source["trust_server"];
	        this.via = source["via"];
	    }
	}
	export class McpInfo {
	    server: string;
	    tool?: string;
	    change?: string;
	    description?: string;
	    old_description?: string;
	    schema?: string;
	    description_diff?: string;
	
	    static createFrom(source: any = {}) {
	        return new McpInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.change = source["change"];
	        this.description = source["description"];
	        this.old_description = source["old_description"];
	        this.schema = source["schema"];
	        this.description_diff = source["description_diff"];
	    }
	}
	export class Pending {
	    request_id: string;
	    session_id: string;
	    call_id: string;
	    tool: string;
	    args: number[];
	    risk: string;
	    reasons: string[];
	    signature: string;
	    always_refused?: string;
	    effects: policy.Effect[];
	    trace: policy.Step[];
	    preview?: string;
	    mcp?: McpInfo;
	    created_at: number;
	    live: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Pending(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.request_id = source["request_id"];
	        this.session_id = source["session_id"];
	        this.call_id = source["call_id"];
	        this.tool = source["tool"];
	        this.args = source["args"];
	        this.risk = source["risk"];
	        this.reasons = source["reasons"];
	        this.signature = source["signature"];
	        this.always_refused = source["always_refused"];
	        this.effects = this.convertValues(source["effects"], policy.Effect);
	        this.trace = this.convertValues(source["trace"], policy.Step);
	        this.preview = source["preview"];
	        this.mcp = this.convertValues(source["mcp"], McpInfo);
	        this.created_at = source["created_at"];
	        this.live = source["live"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace mcp {
	
	export class ToolStatus {
	    name: string;
	    gate_name: string;
	    model_name: string;
	    description: string;
	    hash: string;
	    read_only_hint: boolean;
	    trusted: boolean;
	    untrusted?: string;
	    schema_error?: string;
	
	    static createFrom(source: any = {}) {
	        return new ToolStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.gate_name = source["gate_name"];
	        this.model_name = source["model_name"];
	        this.description = source["description"];
	        this.hash = source["hash"];
	        this.read_only_hint = source["read_only_hint"];
	        this.trusted = source["trusted"];
	        this.untrusted = source["untrusted"];
	        this.schema_error = source["schema_error"];
	    }
	}
	export class TrustStatus {
	    scope: string;
	    // Go type: time
	    trusted_at: any;
	    config_matches: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TrustStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.scope = source["scope"];
	        this.trusted_at = this.convertValues(source["trusted_at"], null);
	        this.config_matches = source["config_matches"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ServerStatus {
	    name: string;
	    transport: string;
	    source: string;
	    workspace?: string;
	    command?: string;
	    args?: string[];
	    env_names?: string[];
	    url?: string;
	    sandbox?: string;
	    sandbox_why?: string;
	    config_hash: string;
	    state: string;
	    last_error?: string;
	    log_path: string;
	    restarts: number;
	    trust?: TrustStatus;
	    tools: ToolStatus[];
	
	    static createFrom(source: any = {}) {
	        return new ServerStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.transport = source["transport"];
	        this.source = source["source"];
	        this.workspace = source["workspace"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.env_names = source["env_names"];
	        this.url = source["url"];
	        this.sandbox = source["sandbox"];
	        this.sandbox_why = source["sandbox_why"];
	        this.config_hash = source["config_hash"];
	        this.state = source["state"];
	        this.last_error = source["last_error"];
	        this.log_path = source["log_path"];
	        this.restarts = source["restarts"];
	        this.trust = this.convertValues(source["trust"], TrustStatus);
	        this.tools = this.convertValues(source["tools"], ToolStatus);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	

}

export namespace policy {
	
	export class Effect {
	    kind: string;
	    paths?: string[];
	    why?: string;
	    hosts?: string[];
	    command?: string;
	    cwd?: string;
	    escalate?: boolean;
	    links?: {[key: string]: string};
	    action?: string;
	    origin?: string;
	    server?: string;
	    tool?: string;
	    read_only_hint?: boolean;
	    trusted?: boolean;
	    mutates?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Effect(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.paths = source["paths"];
	        this.why = source["why"];
	        this.hosts = source["hosts"];
	        this.command = source["command"];
	        this.cwd = source["cwd"];
	        this.escalate = source["escalate"];
	        this.links = source["links"];
	        this.action = source["action"];
	        this.origin = source["origin"];
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.read_only_hint = source["read_only_hint"];
	        this.trusted = source["trusted"];
	        this.mutates = source["mutates"];
	    }
	}
	export class Step {
	    step: string;
	    saw: string;
	    concluded: string;
	
	    static createFrom(source: any = {}) {
	        return new Step(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.step = source["step"];
	        this.saw = source["saw"];
	        this.concluded = source["concluded"];
	    }
	}

}

export namespace runtime {
	
	export class Sandbox {
	    kind: number;
	    network_access: boolean;
	    writable_roots: string[];
	
	    static createFrom(source: any = {}) {
	        return new Sandbox(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.network_access = source["network_access"];
	        this.writable_roots = source["writable_roots"];
	    }
	}
	export class CreateSessionArgs {
	    workspace: string;
	    title?: string;
	    approval?: number;
	    sandbox?: Sandbox;
	
	    static createFrom(source: any = {}) {
	        return new CreateSessionArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = source["workspace"];
	        this.title = source["title"];
	        this.approval = source["approval"];
	        this.sandbox = this.convertValues(source["sandbox"], Sandbox);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Event {
	    seq: number;
	    session_id: string;
	    version: number;
	    kind: string;
	    at: number;
	    data: number[];
	
	    static createFrom(source: any = {}) {
	        return new Event(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.session_id = source["session_id"];
	        this.version = source["version"];
	        this.kind = source["kind"];
	        this.at = source["at"];
	        this.data = source["data"];
	    }
	}
	export class Export {
	    filename: string;
	    content: string;
	
	    static createFrom(source: any = {}) {
	        return new Export(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.filename = source["filename"];
	        this.content = source["content"];
	    }
	}
	export class GrantView {
	    id: string;
	    kind: string;
	    signature: string;
	    scope: string;
	    reasons: string[];
	    created_at: number;
	    expires_at?: number;
	    uses: number;
	    server?: string;
	
	    static createFrom(source: any = {}) {
	        return new GrantView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.kind = source["kind"];
	        this.signature = source["signature"];
	        this.scope = source["scope"];
	        this.reasons = source["reasons"];
	        this.created_at = source["created_at"];
	        this.expires_at = source["expires_at"];
	        this.uses = source["uses"];
	        this.server = source["server"];
	    }
	}
	export class Info {
	    name: string;
	    version: string;
	    demo: boolean;
	    model: string;
	    caged: boolean;
	    cage_reason: string;
	    data_path: string;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.version = source["version"];
	        this.demo = source["demo"];
	        this.model = source["model"];
	        this.caged = source["caged"];
	        this.cage_reason = source["cage_reason"];
	        this.data_path = source["data_path"];
	    }
	}
	export class McpPendingServer {
	    name: string;
	    source: string;
	    transport: string;
	    launch: string;
	    command?: string;
	    args?: string[];
	    url?: string;
	    env_names?: string[];
	    workspace: string;
	    changed?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new McpPendingServer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.source = source["source"];
	        this.transport = source["transport"];
	        this.launch = source["launch"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.url = source["url"];
	        this.env_names = source["env_names"];
	        this.workspace = source["workspace"];
	        this.changed = source["changed"];
	    }
	}
	export class RestoreToArgs {
	    session_id: string;
	    message_id: string;
	    force?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RestoreToArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.message_id = source["message_id"];
	        this.force = source["force"];
	    }
	}
	export class RevokeGrantArgs {
	    id: string;
	    kind: string;
	    session_id?: string;
	
	    static createFrom(source: any = {}) {
	        return new RevokeGrantArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.kind = source["kind"];
	        this.session_id = source["session_id"];
	    }
	}
	
	export class Session {
	    id: string;
	    parent_id?: string;
	    workspace: string;
	    title: string;
	    approval: number;
	    sandbox: Sandbox;
	    planning: boolean;
	    archived?: boolean;
	    created_at: number;
	    updated_at: number;
	    busy: boolean;
	    pending: number;
	
	    static createFrom(source: any = {}) {
	        return new Session(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.parent_id = source["parent_id"];
	        this.workspace = source["workspace"];
	        this.title = source["title"];
	        this.approval = source["approval"];
	        this.sandbox = this.convertValues(source["sandbox"], Sandbox);
	        this.planning = source["planning"];
	        this.archived = source["archived"];
	        this.created_at = source["created_at"];
	        this.updated_at = source["updated_at"];
	        this.busy = source["busy"];
	        this.pending = source["pending"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TrustMcpArgs {
	    session_id: string;
	    server: string;
	    scope: string;
	
	    static createFrom(source: any = {}) {
	        return new TrustMcpArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.server = source["server"];
	        this.scope = source["scope"];
	    }
	}
	export class UndoCallArgs {
	    session_id: string;
	    call_id: string;
	    force?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new UndoCallArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.call_id = source["call_id"];
	        this.force = source["force"];
	    }
	}
	export class UndoConflict {
	    message: string;
	    paths: string[];
	    later: string[];
	
	    static createFrom(source: any = {}) {
	        return new UndoConflict(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.message = source["message"];
	        this.paths = source["paths"];
	        this.later = source["later"];
	    }
	}
	export class UndoResult {
	    done: boolean;
	    id?: string;
	    restored: string[];
	    forced?: string[];
	    conflict?: UndoConflict;
	
	    static createFrom(source: any = {}) {
	        return new UndoResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.done = source["done"];
	        this.id = source["id"];
	        this.restored = source["restored"];
	        this.forced = source["forced"];
	        this.conflict = this.convertValues(source["conflict"], UndoConflict);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace sandbox {
	
	export class Limits {
	    processes: number;
	    tmp_bytes: number;
	    file_bytes: number;
	
	    static createFrom(source: any = {}) {
	        return new Limits(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.processes = source["processes"];
	        this.tmp_bytes = source["tmp_bytes"];
	        this.file_bytes = source["file_bytes"];
	    }
	}

}

export namespace settings {
	
	export class CageView {
	    hidden: string[];
	    allow_unix_sockets: string[];
	    docker_socket: boolean;
	    limits: sandbox.Limits;
	
	    static createFrom(source: any = {}) {
	        return new CageView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.hidden = source["hidden"];
	        this.allow_unix_sockets = source["allow_unix_sockets"];
	        this.docker_socket = source["docker_socket"];
	        this.limits = this.convertValues(source["limits"], sandbox.Limits);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ConnectionResult {
	    ok: boolean;
	    latency_ms: number;
	    model_count: number;
	    model_found: boolean;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new ConnectionResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	        this.latency_ms = source["latency_ms"];
	        this.model_count = source["model_count"];
	        this.model_found = source["model_found"];
	        this.message = source["message"];
	    }
	}
	export class Defaults {
	    approval: number;
	    sandbox: runtime.Sandbox;
	
	    static createFrom(source: any = {}) {
	        return new Defaults(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.approval = source["approval"];
	        this.sandbox = this.convertValues(source["sandbox"], runtime.Sandbox);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class McpLog {
	    server: string;
	    path: string;
	    lines: string[];
	    truncated: boolean;
	
	    static createFrom(source: any = {}) {
	        return new McpLog(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.path = source["path"];
	        this.lines = source["lines"];
	        this.truncated = source["truncated"];
	    }
	}
	export class McpLogArgs {
	    server: string;
	    lines?: number;
	
	    static createFrom(source: any = {}) {
	        return new McpLogArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.lines = source["lines"];
	    }
	}
	export class ModelArgs {
	    provider: string;
	    model: string;
	    base_url: string;
	    api_key?: string;
	    clear_api_key?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ModelArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.base_url = source["base_url"];
	        this.api_key = source["api_key"];
	        this.clear_api_key = source["clear_api_key"];
	    }
	}
	export class ModelInfo {
	    id: string;
	    display_name: string;
	    created_at?: string;
	
	    static createFrom(source: any = {}) {
	        return new ModelInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.display_name = source["display_name"];
	        this.created_at = source["created_at"];
	    }
	}
	export class ModelSettings {
	    provider: string;
	    model: string;
	    base_url: string;
	    api_key_set: boolean;
	    api_key_source: string;
	    api_key_hint: string;
	
	    static createFrom(source: any = {}) {
	        return new ModelSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.base_url = source["base_url"];
	        this.api_key_set = source["api_key_set"];
	        this.api_key_source = source["api_key_source"];
	        this.api_key_hint = source["api_key_hint"];
	    }
	}
	export class NetworkArgs {
	    enabled: string[];
	    allow: string[];
	    deny: string[];
	
	    static createFrom(source: any = {}) {
	        return new NetworkArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.allow = source["allow"];
	        this.deny = source["deny"];
	    }
	}
	export class NetworkSettings {
	    presets: config.Preset[];
	    enabled: string[];
	    allow: string[];
	    deny: string[];
	    command_line: string[];
	
	    static createFrom(source: any = {}) {
	        return new NetworkSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.presets = this.convertValues(source["presets"], config.Preset);
	        this.enabled = source["enabled"];
	        this.allow = source["allow"];
	        this.deny = source["deny"];
	        this.command_line = source["command_line"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ProbeArgs {
	    provider: string;
	    base_url: string;
	    api_key?: string;
	    model?: string;
	
	    static createFrom(source: any = {}) {
	        return new ProbeArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.base_url = source["base_url"];
	        this.api_key = source["api_key"];
	        this.model = source["model"];
	    }
	}
	export class ProviderInfo {
	    id: string;
	    label: string;
	    needs_key: boolean;
	    default_base_url: string;
	
	    static createFrom(source: any = {}) {
	        return new ProviderInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.label = source["label"];
	        this.needs_key = source["needs_key"];
	        this.default_base_url = source["default_base_url"];
	    }
	}
	export class Settings {
	    config_path: string;
	    model: ModelSettings;
	    active_model: string;
	    defaults: Defaults;
	    providers: ProviderInfo[];
	    warnings: string[];
	    network: NetworkSettings;
	    cage?: CageView;
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.config_path = source["config_path"];
	        this.model = this.convertValues(source["model"], ModelSettings);
	        this.active_model = source["active_model"];
	        this.defaults = this.convertValues(source["defaults"], Defaults);
	        this.providers = this.convertValues(source["providers"], ProviderInfo);
	        this.warnings = source["warnings"];
	        this.network = this.convertValues(source["network"], NetworkSettings);
	        this.cage = this.convertValues(source["cage"], CageView);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace telemetry {
	
	export class ExportStatus {
	    enabled: boolean;
	    endpoint: string;
	    protocol: string;
	    log_arguments: boolean;
	    required: boolean;
	    pinned: string[];
	    state: string;
	    queued: number;
	    oldest_ms: number;
	    sent: number;
	    dropped: number;
	    last_success_ms: number;
	    last_error: string;
	    last_error_ms: number;
	
	    static createFrom(source: any = {}) {
	        return new ExportStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.endpoint = source["endpoint"];
	        this.protocol = source["protocol"];
	        this.log_arguments = source["log_arguments"];
	        this.required = source["required"];
	        this.pinned = source["pinned"];
	        this.state = source["state"];
	        this.queued = source["queued"];
	        this.oldest_ms = source["oldest_ms"];
	        this.sent = source["sent"];
	        this.dropped = source["dropped"];
	        this.last_success_ms = source["last_success_ms"];
	        this.last_error = source["last_error"];
	        this.last_error_ms = source["last_error_ms"];
	    }
	}

}

