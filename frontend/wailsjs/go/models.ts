export namespace app {
	
	export class AppInfo {
	    name: string;
	    version: string;
	
	    static createFrom(source: any = {}) {
	        return new AppInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.version = source["version"];
	    }
	}
	export class SandboxStatus {
	    available: boolean;
	    mechanism: string;
	    version: string;
	    detail: string;
	
	    static createFrom(source: any = {}) {
	        return new SandboxStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.available = source["available"];
	        this.mechanism = source["mechanism"];
	        this.version = source["version"];
	        this.detail = source["detail"];
	    }
	}

}

